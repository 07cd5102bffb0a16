import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { MemoryLimitStore } from '../../src/limits/memory-limit-store.js';
import { rateLimit, type RateLimit } from '../../src/limits/rate-limit.js';
import { limiterOver, type LimitStore, type RateRequest } from '../../src/limits/rate-limiter.js';
import { postgresTarget } from '../../src/worker/postgres-target.js';
import { WorkerStore } from '../../src/worker/worker-store.js';
import { fleetSchema } from '../worker/fleet-helpers.js';

// One contract for the limits of one process (memory) and of a fleet (PostgreSQL). Rates are low enough
// that the buckets refill nothing worth counting while a case runs, so what a case sees is the bucket's
// arithmetic, not the clock.

const E = 'https://models.example/v1';
const call = (tokens = 0, model = 'm1'): RateRequest => ({ endpoint: E, model, tokens });

interface Backend {
  /** A store holding `limits`; each call gives an empty one. */
  open(limits: readonly RateLimit[]): Promise<LimitStore & { setLimit(limit: RateLimit): unknown }>;
}

const memory: Backend = { open: (limits) => Promise.resolve(new MemoryLimitStore(limits)) };

const schemas: ReturnType<typeof fleetSchema>[] = [];
const stores: WorkerStore[] = [];
/** A worker's store on a schema of its own (a fresh fleet) or on `fleet`'s (a second worker of the same fleet). */
async function openStore(fleet: ReturnType<typeof fleetSchema> = fleetSchema('redline_limits')): Promise<WorkerStore> {
  if (!schemas.includes(fleet)) schemas.push(fleet);
  const store = await WorkerStore.open(postgresTarget(fleet.url), { connections: 2 });
  stores.push(store);
  return store;
}
const postgres: Backend = {
  async open(limits) {
    // A schema per case: every case starts with no limits.
    const store = await openStore();
    for (const limit of limits) await store.limits.setLimit(limit);
    return store.limits;
  },
};
after(async () => {
  await Promise.all(stores.map((store) => store.close()));
  await Promise.all(schemas.map((fleet) => fleet.drop()));
});

const waitOf = (turn: { taken: true } | { waitMs: number }): number => ('waitMs' in turn ? turn.waitMs : 0);

for (const [name, backend] of [
  ['memory', memory],
  ['postgres', postgres],
] as const) {
  describe(`rate limits: ${name}`, () => {
    it('lets a call no limit names go at once, every time', async () => {
      const store = await backend.open([rateLimit({ endpoint: 'https://other.example/v1', requestsPerMinute: 1 })]);
      for (let index = 0; index < 5; index++) assert.deepEqual(await store.take(call(10_000)), { taken: true });
    });

    it("lets a minute's allowance go at once, then names the wait for the next request", async () => {
      const store = await backend.open([rateLimit({ endpoint: E, requestsPerMinute: 6 })]);
      for (let index = 0; index < 6; index++) assert.deepEqual(await store.take(call()), { taken: true }, `call ${index + 1}`);
      const wait = waitOf(await store.take(call()));
      // One request refills in 10 s; a little of it may have refilled meanwhile.
      assert.ok(wait > 9_000 && wait <= 10_000, `waits ${wait} ms`);
    });

    it("takes from the model's limit and the endpoint's * together, or from neither", async () => {
      const store = await backend.open([
        rateLimit({ endpoint: E, model: 'm1', requestsPerMinute: 6, burstSeconds: 10 }),
        rateLimit({ endpoint: E, requestsPerMinute: 6, burstSeconds: 20 }),
      ]);
      assert.deepEqual(await store.take(call(0, 'm1')), { taken: true });
      const m1 = waitOf(await store.take(call(0, 'm1')));
      assert.ok(m1 > 9_000, `m1 waits for its own limit: ${m1} ms`);
      // The refused m1 call took nothing from *: m2 still gets the second of its two requests.
      assert.deepEqual(await store.take(call(0, 'm2')), { taken: true });
      const m2 = waitOf(await store.take(call(0, 'm2')));
      assert.ok(m2 > 9_000, `m2 waits for the endpoint's limit: ${m2} ms`);
    });

    it('reserves tokens, gives back what a call did not use and owes what it used beyond', async () => {
      // 600 tokens a minute, 10 s of burst: 100 tokens at once, 10 a second.
      const store = await backend.open([rateLimit({ endpoint: E, tokensPerMinute: 600, burstSeconds: 10 })]);
      assert.deepEqual(await store.take(call(80)), { taken: true });
      const short = waitOf(await store.take(call(80)));
      assert.ok(short > 5_500 && short <= 6_000, `60 tokens short: ${short} ms`);
      await store.settle(call(80), 20);
      assert.deepEqual(await store.take(call(80)), { taken: true }, 'the 60 unused tokens came back');
      await store.settle(call(80), 380);
      const owed = waitOf(await store.take(call(1)));
      assert.ok(owed > 29_000 && owed <= 30_100, `300 tokens owed: ${owed} ms`);
    });

    it('lets a call larger than the bucket go when the bucket is full, and owes the rest', async () => {
      const store = await backend.open([rateLimit({ endpoint: E, tokensPerMinute: 600, burstSeconds: 10 })]);
      assert.deepEqual(await store.take(call(500)), { taken: true });
      await store.settle(call(500), 500);
      const owed = waitOf(await store.take(call(1)));
      assert.ok(owed > 39_000 && owed <= 40_100, `400 tokens owed: ${owed} ms`);
    });

    it('keeps what a bucket holds when its limit changes', async () => {
      const store = await backend.open([rateLimit({ endpoint: E, requestsPerMinute: 6, burstSeconds: 10 })]);
      assert.deepEqual(await store.take(call()), { taken: true });
      await store.setLimit(rateLimit({ endpoint: E, requestsPerMinute: 12, burstSeconds: 10 }));
      const wait = waitOf(await store.take(call()));
      assert.ok(wait > 4_000 && wait <= 5_000, `empty, refilling at the new rate: ${wait} ms`);
    });

    it('lets a waiting call go when its turn comes, and an aborted one stop waiting', async () => {
      const store = await backend.open([
        rateLimit({ endpoint: E, requestsPerMinute: 600, burstSeconds: 0.1 }),
        rateLimit({ endpoint: E, model: 'slow', requestsPerMinute: 1 }),
      ]);
      const waits: number[] = [];
      const limiter = limiterOver(store, { onWait: (_request, waitMs) => waits.push(waitMs) });
      await limiter.acquire(call());
      const grant = await limiter.acquire(call());
      assert.ok(grant.waitedMs >= 50, `waited ${grant.waitedMs} ms for the 100 ms refill`);
      assert.equal(waits.length, 1);
      const slow = rateLimit({ endpoint: E, model: 'slow', requestsPerMinute: 1, burstSeconds: 1 });
      await store.setLimit(slow);
      await limiter.acquire(call(0, 'slow'));
      const stop = new AbortController();
      const waiting = limiter.acquire(call(0, 'slow'), { signal: stop.signal });
      stop.abort(new Error('run stopped'));
      await assert.rejects(waiting, /run stopped/);
    });
  });
}

describe('rate limits shared through PostgreSQL', () => {
  it('hold across two workers: together they never take more than the allowance', async () => {
    const fleet = fleetSchema('redline_limits');
    const first = await openStore(fleet);
    const second = await openStore(fleet);
    // 10 requests a second, 2 at once.
    await first.limits.setLimit(rateLimit({ endpoint: E, requestsPerMinute: 600, burstSeconds: 0.2 }));
    const waited = [0, 0];
    const limiters = [first, second].map((store, index) =>
      limiterOver(store.limits, { onWait: () => void (waited[index] = (waited[index] ?? 0) + 1) }),
    );
    const serverNow = async (): Promise<number> => (await first.limits.limits())[0]?.level.at ?? Number.NaN;
    // The bucket is full (and stays capped) from the moment the limit is set, by the server's clock.
    const started = await serverNow();
    await Promise.all(limiters.flatMap((limiter) => Array.from({ length: 6 }, () => limiter.acquire(call()))));
    const lastTake = await serverNow();
    // 12 requests from a full bucket of 2 refilled at 10 a second: the last cannot be taken before 1 s.
    assert.ok(lastTake - started >= 1_000 - 1, `12 requests took ${lastTake - started} ms of the server's clock`);
    assert.ok(waited[0]! > 0 && waited[1]! > 0, `both workers waited: ${waited.join(', ')}`);
  });
});
