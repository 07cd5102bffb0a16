import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { routeReview } from '../../src/handoff/review-route.js';

describe('routeReview', () => {
  it('hands off a run whose ledger has a queue by default, unverified runs only, and records it as default', async () => {
    assert.deepEqual(await routeReview({ requested: undefined, queueExists: () => true }), {
      review: 'default',
      handsOff: true,
      sampleRate: 0,
    });
    assert.deepEqual(await routeReview({ requested: undefined, queueExists: async () => false, sampleRate: 0.5 }), {
      review: undefined,
      handsOff: false,
      sampleRate: undefined,
    });
  });

  it('follows the caller who asks or refuses, without looking for a queue', async () => {
    const nobodyAsks = () => assert.fail('the queue is looked for only when the caller neither asked nor refused');
    assert.deepEqual(await routeReview({ requested: true, queueExists: nobodyAsks, sampleRate: 0.5 }), {
      review: 'requested',
      handsOff: true,
      sampleRate: 0.5,
    });
    assert.deepEqual(await routeReview({ requested: true, queueExists: nobodyAsks }), {
      review: 'requested',
      handsOff: true,
      sampleRate: undefined,
    });
    assert.deepEqual(await routeReview({ requested: false, queueExists: nobodyAsks, sampleRate: 0.5 }), {
      review: 'opted_out',
      handsOff: false,
      sampleRate: undefined,
    });
  });
});
