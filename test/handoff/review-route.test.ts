import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { routeReview } from '../../src/handoff/review-route.js';

describe('routeReview', () => {
  it('hands off by default, sampling at the given rate: to a queue the ledger has, or to one the first seal that needs it creates', async () => {
    assert.deepEqual(await routeReview({ requested: undefined, queueExists: () => true }), {
      review: 'default',
      handsOff: true,
      deferred: false,
      sampleRate: undefined,
    });
    assert.deepEqual(await routeReview({ requested: undefined, queueExists: async () => false, sampleRate: 0.5 }), {
      review: 'default',
      handsOff: true,
      deferred: true,
      sampleRate: 0.5,
    });
  });

  it('follows the caller who asks or refuses, without looking for a queue', async () => {
    const nobodyAsks = () => assert.fail('the queue is looked for only when the caller neither asked nor refused');
    assert.deepEqual(await routeReview({ requested: true, queueExists: nobodyAsks, sampleRate: 0.5 }), {
      review: 'requested',
      handsOff: true,
      deferred: false,
      sampleRate: 0.5,
    });
    assert.deepEqual(await routeReview({ requested: true, queueExists: nobodyAsks }), {
      review: 'requested',
      handsOff: true,
      deferred: false,
      sampleRate: undefined,
    });
    assert.deepEqual(await routeReview({ requested: false, queueExists: nobodyAsks, sampleRate: 0.5 }), {
      review: 'opted_out',
      handsOff: false,
      deferred: false,
      sampleRate: undefined,
    });
  });
});
