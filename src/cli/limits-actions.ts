import { rateLimit, type RateLimit } from '../limits/rate-limit.js';
import { capacity } from '../limits/token-bucket.js';
import { postgresTarget } from '../worker/postgres-target.js';
import { WorkerStore } from '../worker/worker-store.js';
import { table } from './format.js';
import type { Output } from './run-command.js';
import { clean, jsonLine } from './terminal-text.js';

// `redline limits`: the fleet's rate limits per model endpoint (docs/workers.md), stored in PostgreSQL beside the
// job queue so every worker on every machine waits for the same allowance.

export interface LimitsSetOptions {
  readonly postgres: string;
  readonly model?: string;
  readonly requestsPerMinute?: number;
  readonly tokensPerMinute?: number;
  readonly burst?: number;
  readonly json?: boolean;
}

async function withStore<T>(postgres: string, work: (store: WorkerStore) => Promise<T>): Promise<T> {
  const store = await WorkerStore.open(postgresTarget(postgres), { connections: 1 });
  try {
    return await work(store);
  } finally {
    await store.close();
  }
}

const perMinute = (value: number | undefined): string => (value === undefined ? '-' : String(value));

/** A limit as a JSON line and in the table: its settings and its burst capacity. */
const limitFields = (limit: RateLimit): Record<string, unknown> => ({
  endpoint: limit.endpoint,
  model: limit.model,
  requestsPerMinute: limit.requestsPerMinute ?? null,
  tokensPerMinute: limit.tokensPerMinute ?? null,
  burstSeconds: limit.burstSeconds,
});

/** `redline limits`: every limit, with what its bucket holds now. */
export async function limitsListCommand(options: { postgres: string; json?: boolean }, { print }: Output): Promise<number> {
  return withStore(options.postgres, async (store) => {
    const limits = await store.limits.limits();
    if (options.json === true) {
      for (const { limit } of limits) print(jsonLine(limitFields(limit)));
      return 0;
    }
    if (limits.length === 0) {
      print('no rate limits: model calls go at once (redline limits set ENDPOINT --requests-per-minute N)');
      return 0;
    }
    print(
      table(
        ['endpoint', 'model', 'requests/min', 'tokens/min', 'burst'],
        limits.map(({ limit }) => {
          const most = capacity(limit);
          const burst = [
            Number.isFinite(most.requests) ? `${Math.floor(most.requests)} requests` : undefined,
            Number.isFinite(most.tokens) ? `${Math.floor(most.tokens)} tokens` : undefined,
          ].filter(Boolean);
          return [
            clean(limit.endpoint),
            clean(limit.model),
            perMinute(limit.requestsPerMinute),
            perMinute(limit.tokensPerMinute),
            `${burst.join(', ')} (${limit.burstSeconds} s)`,
          ];
        }),
      ),
    );
    return 0;
  });
}

/** `redline limits set ENDPOINT`: adds or replaces a limit; workers apply it at their next model call. */
export async function limitsSetCommand(endpoint: string, options: LimitsSetOptions, { print }: Output): Promise<number> {
  const limit = rateLimit({
    endpoint,
    model: options.model,
    requestsPerMinute: options.requestsPerMinute,
    tokensPerMinute: options.tokensPerMinute,
    burstSeconds: options.burst,
  });
  await withStore(options.postgres, (store) => store.limits.setLimit(limit));
  print(
    options.json === true
      ? jsonLine(limitFields(limit))
      : `limit set: ${clean(limit.endpoint)} (${clean(limit.model)}): ${perMinute(limit.requestsPerMinute)} requests/min, ${perMinute(limit.tokensPerMinute)} tokens/min, burst ${limit.burstSeconds} s`,
  );
  return 0;
}

/** `redline limits remove ENDPOINT`: calls to it go at once again. Exit 1 when there was no such limit. */
export async function limitsRemoveCommand(
  endpoint: string,
  options: { postgres: string; model?: string },
  { print, progress }: Output,
): Promise<number> {
  const { endpoint: key, model } = rateLimit({ endpoint, model: options.model, requestsPerMinute: 1 });
  if (await withStore(options.postgres, (store) => store.limits.removeLimit(key, model))) {
    print(`limit removed: ${clean(key)} (${clean(model)})`);
    return 0;
  }
  progress(`no limit for ${clean(key)} (${clean(model)}): see redline limits --postgres URL`);
  return 1;
}
