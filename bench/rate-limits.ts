// `rate-limits`: model calls per second that the fleet's shared bucket admits when every caller hits one
// endpoint's row (take + settle, `clients` connections at once), against the same calls to an endpoint no
// limit names (the statements find no row: the database's round trips alone).
import os from 'node:os';
import { rateLimit } from '../src/limits/rate-limit.js';
import { postgresTarget } from '../src/worker/postgres-target.js';
import { WorkerStore } from '../src/worker/worker-store.js';
import { dropSchemas } from './workers.js';

const SERVER = 'postgres://postgres@127.0.0.1:5432/test';

export interface RateLimitsResult {
  readonly calls: number;
  readonly clients: number;
  /** Calls per second through one limit's row. */
  readonly limited: number;
  /** Calls per second to an endpoint without a limit. */
  readonly unlimited: number;
  readonly load: number;
}

export async function rateLimitsBench({
  calls = 4000,
  clients = 16,
}: { calls?: number; clients?: number } = {}): Promise<RateLimitsResult> {
  const schema = `bench_rate_limits_${process.pid}`;
  // Four "workers" with four connections each, as a fleet's processes would hold.
  const stores = await Promise.all(
    Array.from({ length: 4 }, () => WorkerStore.open(postgresTarget(`${SERVER}?schema=${schema}`), { connections: clients / 4 })),
  );
  try {
    await stores[0]!.limits.setLimit(rateLimit({ endpoint: 'limited', requestsPerMinute: 1e12, tokensPerMinute: 1e12 }));
    const rate = async (endpoint: string): Promise<number> => {
      const started = performance.now();
      await Promise.all(
        Array.from({ length: clients }, async (_, index) => {
          const { limits } = stores[index % stores.length]!;
          for (let call = 0; call < calls / clients; call++) {
            const request = { endpoint, model: 'm', tokens: 500 };
            await limits.take(request);
            await limits.settle(request, 300);
          }
        }),
      );
      return calls / ((performance.now() - started) / 1000);
    };
    await rate('warm-up');
    const unlimited = await rate('unlimited');
    const limited = await rate('limited');
    return { calls, clients, limited, unlimited, load: os.loadavg()[0] ?? 0 };
  } finally {
    await Promise.all(stores.map((store) => store.close()));
    await dropSchemas(schema);
  }
}
