import os from 'node:os';
import path from 'node:path';
import { defaultCacheDir } from '../workspace/workspace-cache.js';
import { displayLocation, openLedger } from '../ledger/open-ledger.js';
import { openSigner, readPublicKey } from '../ledger/signing-key.js';
import { openReviewQueue, reviewQueueExists } from '../review/open-review-queue.js';
import type { ReviewQueue } from '../review/review-queue.js';
import { JobQueue } from '../worker/job-queue.js';
import { postgresTarget, type PostgresTarget } from '../worker/postgres-target.js';
import { submitMission } from '../worker/submit.js';
import type { SubmissionTrust } from '../worker/submission-signature.js';
import { DEFAULT_BOUNDS, type WorkspaceBounds } from '../worker/workspace-bounds.js';
import { Worker } from '../worker/worker.js';
import { WorkerStore } from '../worker/worker-store.js';
import type { Output } from './run-command.js';
import { reviewHandoff } from './review-handoff.js';
import { table } from './format.js';
import { clean, jsonLine } from './terminal-text.js';

/** A worker unseen for this long is shown as gone. */
const STALE_MS = 10_000;

/** The size bounds of a workspace `--max-workspace-bytes` and `--max-file-bytes` set. */
function boundsOf(options: { maxWorkspaceBytes?: number; maxFileBytes?: number }): WorkspaceBounds {
  return {
    maxBytes: options.maxWorkspaceBytes ?? DEFAULT_BOUNDS.maxBytes,
    maxFileBytes: options.maxFileBytes ?? DEFAULT_BOUNDS.maxFileBytes,
  };
}

/** `redline submit`: one line per mission file queued. */
export async function submitCommand(
  files: readonly string[],
  options: {
    postgres: string;
    proposer?: string;
    lease?: number;
    json?: boolean;
    signingKey?: string;
    maxWorkspaceBytes?: number;
    maxFileBytes?: number;
  },
  { print, progress }: Output,
): Promise<number> {
  const target = postgresTarget(options.postgres);
  const bounds = boundsOf(options);
  const { signer, file: keyFile, created } = await openSigner({ explicit: options.signingKey, location: target.location });
  if (options.json !== true)
    progress(
      `signing with key ${signer.keyId} (${keyFile}${created ? ', created now' : ''}); workers trust it with --trust-key <its .pub>`,
    );
  const store = await WorkerStore.open(target, { connections: 2 });
  try {
    const queue = await JobQueue.open({ target, connections: 1, ...(options.lease === undefined ? {} : { leaseSeconds: options.lease }) });
    try {
      for (const file of files) {
        const done = await submitMission({
          file,
          store,
          queue,
          signer,
          bounds,
          ...(options.proposer === undefined ? {} : { proposer: options.proposer }),
        });
        if (options.json === true)
          print(
            jsonLine({
              submission: done.id,
              mission: done.missionId,
              files: done.files,
              newBlobs: done.newBlobs,
              reusedBlobs: done.reusedBlobs,
              newBytes: done.newBytes,
              keyId: done.keyId,
            }),
          );
        else
          print(
            `submitted ${done.id} mission ${clean(done.missionId)}: ${done.files} files, ${done.newBlobs} new blobs (${done.newBytes} bytes), ${done.reusedBlobs} already stored`,
          );
      }
    } finally {
      await queue.close();
    }
  } finally {
    await store.close();
  }
  if (options.json !== true) progress(`queued on ${displayLocation(target.location)}: run them with redline worker --postgres URL`);
  return 0;
}

/** `redline worker`: works until SIGTERM / SIGINT (or idle, with `--until-idle`). */
export async function workerCommand(
  options: {
    postgres: string;
    concurrency?: number;
    lease?: number;
    workdir?: string;
    signingKey?: string;
    trustKey?: string[];
    trustDatabase?: boolean;
    maxWorkspaceBytes?: number;
    maxFileBytes?: number;
    review?: boolean;
    untilIdle?: boolean;
    cache?: boolean;
    cacheDir?: string;
  },
  { progress }: Output,
): Promise<number> {
  const trust = await trustOf(options);
  const target = postgresTarget(options.postgres);
  const concurrency = options.concurrency ?? 1;
  const stop = new AbortController();
  const onSignal = (): void => stop.abort();
  // From the first moment: a worker stopped while it starts holds nothing and exits 0.
  process.once('SIGTERM', onSignal);
  process.once('SIGINT', onSignal);
  try {
    await work({ target, concurrency, options, trust, bounds: boundsOf(options), progress, stop: stop.signal });
  } finally {
    process.off('SIGTERM', onSignal);
    process.off('SIGINT', onSignal);
  }
  return 0;
}

/**
 * Whose submissions a worker runs: `--trust-key` (repeatable) or `--trust-database`, exactly one of them.
 * @throws {TypeError} naming both flags when neither or both are given, or naming a key file that cannot be read.
 */
async function trustOf(options: { trustKey?: string[]; trustDatabase?: boolean }): Promise<SubmissionTrust> {
  const files = options.trustKey ?? [];
  if (files.length === 0 && options.trustDatabase !== true)
    throw new TypeError(
      'Expected --trust-key FILE (the public key redline submit signs with; repeatable) or --trust-database (run unsigned submissions: anyone who can write the database can run commands on this worker), got neither',
    );
  if (files.length > 0 && options.trustDatabase === true)
    throw new TypeError('Expected --trust-key or --trust-database, got both: --trust-database would run rows no trusted key signed');
  if (options.trustDatabase === true) return 'database';
  return { keys: await Promise.all(files.map((file) => readPublicKey(file))) };
}

/** Opens the ledger, the fleet's tables, the job queue and the review queue, and works until `stop`. */
async function work({
  target,
  concurrency,
  options,
  trust,
  bounds,
  progress,
  stop,
}: {
  target: PostgresTarget;
  concurrency: number;
  trust: SubmissionTrust;
  bounds: WorkspaceBounds;
  options: {
    workdir?: string;
    signingKey?: string;
    review?: boolean;
    untilIdle?: boolean;
    lease?: number;
    cache?: boolean;
    cacheDir?: string;
  };
  progress: (line: string) => void;
  stop: AbortSignal;
}): Promise<void> {
  const ledger = await openLedger(target.location);
  const store = await WorkerStore.open(target, { connections: 2 }).catch(async (error: unknown) => {
    await ledger.close();
    throw error;
  });
  let review: ReviewQueue | undefined;
  try {
    const queue = await JobQueue.open({
      target,
      ...(options.lease === undefined ? {} : { leaseSeconds: options.lease }),
      onError: (error) => progress(`worker: job queue: ${clean(error.message)}`),
    });
    try {
      const { signer } = await openSigner({ explicit: options.signingKey, location: target.location });
      review =
        options.review !== false && (await reviewQueueExists(target.location))
          ? await openReviewQueue(target.location, { signer })
          : undefined;
      const output = { print: progress, progress };
      const cacheDir =
        options.cache === false ? undefined : options.cacheDir === undefined ? defaultCacheDir() : path.resolve(options.cacheDir);
      const worker = new Worker({
        queue,
        store,
        ledger,
        concurrency,
        workdir: path.resolve(options.workdir ?? path.join(os.tmpdir(), 'redline-worker')),
        ...(cacheDir === undefined ? {} : { cacheDir }),
        signer,
        trust,
        bounds,
        log: (line) => progress(clean(line)),
        ...(review === undefined ? {} : { review: { queue: review, handoff: reviewHandoff(review, { sampleRate: 0 }, output) } }),
        ...(options.untilIdle === true ? { untilIdle: true } : {}),
      });
      progress(
        `worker ${worker.workerId}: ${concurrency} at a time on ${displayLocation(target.location)}, running ${trust === 'database' ? 'every submission as stored (--trust-database)' : `submissions signed by ${trust.keys.map((key) => key.keyId).join(', ')}`}`,
      );
      const counts = await worker.run(stop);
      progress(
        `worker ${worker.workerId}: stopped · ${Object.entries(counts)
          .map(([key, value]) => `${key} ${value}`)
          .join(', ')}`,
      );
    } finally {
      await queue.close();
    }
  } finally {
    await review?.close();
    await store.close();
    await ledger.close();
  }
}

/** `redline status`: the queue, submissions, runs and workers of a fleet. */
export async function statusCommand(options: { postgres: string; json?: boolean }, { print }: Output): Promise<number> {
  const target = postgresTarget(options.postgres);
  const ledger = await openLedger(target.location);
  const store = await WorkerStore.open(target, { connections: 1 });
  try {
    const queue = await JobQueue.open({ target, connections: 1 });
    try {
      const jobs = await queue.sizes();
      const submissions = await store.submissionCount();
      const refused = await store.refused();
      const refusedCount = await store.refusedCount();
      const unsealed = (await ledger.runs({ unsealed: true })).length;
      const limits = await store.limits.limits();
      const now = Date.now();
      const fleet = (await store.fleet()).map((row) => ({
        ...row,
        state: row.state !== 'stopped' && now - row.seenAt > STALE_MS ? 'gone' : row.state,
      }));
      if (options.json === true) {
        print(
          jsonLine({
            jobs,
            submissions,
            refusedSubmissions: refusedCount,
            refused: refused.map((row) => ({ submission: row.id, mission: row.missionId, reason: row.reason, at: row.at })),
            unsealedRuns: unsealed,
            rateLimits: limits.length,
            workers: fleet,
          }),
        );
        return 0;
      }
      print(
        `jobs          ${jobs.waiting} waiting, ${jobs.active} leased · ${submissions} submissions (${refusedCount} refused) · ${unsealed} unsealed runs`,
      );
      for (const row of refused) print(`refused       ${clean(row.id)} mission ${clean(row.missionId)}: ${clean(row.reason)}`);
      print(`rate limits   ${limits.length === 0 ? 'none' : `${limits.length} (redline limits --postgres URL)`}`);
      print(
        table(
          ['worker', 'state', 'concurrency', 'running', 'done', 'failures', 'rate waits', 'seen', 'note'],
          fleet.map((row) => [
            clean(row.workerId),
            clean(row.state),
            String(row.concurrency),
            String(row.running),
            Object.entries(row.counts)
              .filter(([key]) => key !== 'failures' && key !== 'rate_waits')
              .map(([key, value]) => `${clean(key)} ${value}`)
              .join(', ') || '-',
            String(row.counts.failures ?? 0),
            String(row.counts.rate_waits ?? 0),
            `${Math.round((now - row.seenAt) / 1000)} s ago`,
            clean(row.note ?? ''),
          ]),
        ),
      );
      return 0;
    } finally {
      await queue.close();
    }
  } finally {
    await store.close();
    await ledger.close();
  }
}
