import { hostname } from 'node:os';
import { clean } from '../core/untrusted-text.js';
import { LedgerError } from '../errors/ledger-error.js';
import { RedlineError } from '../errors/redline-error.js';
import type { Handoff } from '../handoff/handoff.js';
import type { Ledger } from '../ledger/ledger.js';
import { limiterOver, type RateLimiter, type RateRequest } from '../limits/rate-limiter.js';
import type { Signer } from '../ledger/seal-signature.js';
import type { ReviewerQueue } from '../review/reviewer-queue.js';
import type { JobQueue, RunJob } from './job-queue.js';
import { runSubmission, type SubmissionResult } from './run-submission.js';
import type { SubmissionTrust } from './submission-signature.js';
import type { TreeReport } from './stable-tree.js';
import type { WorkspaceBounds } from './workspace-bounds.js';
import type { FleetRow, WorkerStore } from './worker-store.js';

export interface WorkerOptions {
  readonly queue: JobQueue;
  readonly store: WorkerStore;
  readonly ledger: Ledger;
  /** Runs at once. */
  readonly concurrency: number;
  /** Where submissions are materialized (see `runSubmission`). */
  readonly workdir: string;
  /** The runs' cache folder, for workspaces in a stable directory (see `runSubmission`); none: every run copies afresh. */
  readonly cacheDir?: string;
  readonly cacheMaxBytes?: number;
  readonly scratchDir?: string;
  readonly signer?: Signer;
  /**
   * Whose submissions run: those signed by one of `keys` (their signature checked over what the worker
   * loaded), or with `'database'` every row as it is — then whoever can write the database runs commands here.
   */
  readonly trust: SubmissionTrust;
  /** How large a workspace a submission may carry. @default DEFAULT_BOUNDS */
  readonly bounds?: WorkspaceBounds;
  /** The review queue in the ledger's storage: runs hand off to it, and its mode sets the backpressure. */
  readonly review?: { readonly queue: ReviewerQueue; readonly handoff: Handoff };
  /** A line for people: each run's end with the live counts, backpressure changes, hand-backs. */
  readonly log: (line: string) => void;
  /** Stop once no job waits, none is leased and none runs here. @default false */
  readonly untilIdle?: boolean;
  /** How often the worker looks for work when it has free slots. @default 250 */
  readonly pollMs?: number;
  readonly _internal?: { readonly now?: () => number; readonly workerId?: string };
}

/**
 * What a worker did: runs sealed per outcome, `failures` (jobs it could not run or had to hand back), and
 * `rate_waits` (model calls that waited for their endpoint's rate limit).
 */
export type WorkerCounts = Record<string, number>;

/** What a run's line says of its workspace's stable directory: ` · workspace reused (2 written, 1 removed, 14 kept)`. */
function treeText(report: TreeReport | undefined): string {
  if (report === undefined) return '';
  const repaired = report.repaired > 0 ? `, ${report.repaired} repaired` : '';
  return ` · workspace ${report.how} (${report.written} written, ${report.removed} removed, ${report.kept} kept${repaired})`;
}

/** How often a worker says, per endpoint, that model calls wait for its rate limit. */
const WAIT_LOG_MS = 10_000;

const sleep = (ms: number, signal: AbortSignal): Promise<void> =>
  new Promise((resolve) => {
    const wake = (): void => {
      clearTimeout(timer);
      signal.removeEventListener('abort', wake);
      resolve();
    };
    const timer = setTimeout(wake, ms);
    signal.addEventListener('abort', wake, { once: true });
  });

/**
 * One `redline worker`: takes jobs while it has free slots, runs each submission (heartbeating its lease
 * every lease / 3), and reports its live counts to the fleet table. While the review queue is degraded it
 * runs at half its concurrency (the "cap agent concurrency" lever) and says so. When `stop` aborts
 * (SIGTERM) it takes no more work and finishes the runs it holds.
 */
export class Worker {
  readonly #options: WorkerOptions;
  readonly #running = new Map<string, Promise<void>>();
  readonly #counts: WorkerCounts = { failures: 0 };
  readonly #rateLimiter: RateLimiter;
  /** When each endpoint's last wait was logged: one line per endpoint per {@link WAIT_LOG_MS}. */
  readonly #waitLogged = new Map<string, number>();
  readonly workerId: string;
  #limit: number;
  #state = 'running';
  #note: string | undefined;

  constructor(options: WorkerOptions) {
    if (!Number.isInteger(options.concurrency) || options.concurrency < 1)
      throw new TypeError(`Expected --concurrency to be a positive integer, got ${options.concurrency}`);
    this.#options = options;
    this.#limit = options.concurrency;
    this.workerId = options._internal?.workerId ?? `${hostname()}:${process.pid}`;
    this.#rateLimiter = limiterOver(options.store.limits, { onWait: (request, waitMs) => this.#rateWait(request, waitMs) });
  }

  /** The live counts: `running`, each outcome, `failures`. */
  counts(): WorkerCounts {
    return { running: this.#running.size, ...this.#counts };
  }

  /** Works until `stop` aborts (or, with `untilIdle`, until there is nothing left), then finishes what it holds. */
  async run(stop: AbortSignal): Promise<WorkerCounts> {
    const { queue, pollMs = 250 } = this.#options;
    const beat = setInterval(() => void this.#report().catch(() => undefined), 1000);
    try {
      await this.#report();
      while (!stop.aborted) {
        await this.#backpressure();
        const jobs = await queue.take(this.#limit - this.#running.size);
        for (const job of jobs) this.#start(job);
        if (jobs.length === 0 && this.#running.size === 0 && this.#options.untilIdle === true) {
          const { waiting, active } = await queue.sizes();
          if (waiting === 0 && active === 0) break;
        }
        await Promise.race([sleep(pollMs, stop), ...(this.#running.size >= this.#limit ? this.#running.values() : [])]);
      }
      this.#state = 'draining';
      if (this.#running.size > 0) this.#options.log(`worker ${this.workerId}: no new work; finishing ${this.#running.size} run(s)`);
      await this.#report();
      await Promise.all(this.#running.values());
      this.#state = 'stopped';
      return this.counts();
    } finally {
      clearInterval(beat);
      await this.#report().catch(() => undefined);
    }
  }

  /** Halves the concurrency while the review queue is degraded, and restores it when it recovers. */
  async #backpressure(): Promise<void> {
    const review = this.#options.review;
    if (review === undefined) return;
    const { concurrency, log } = this.#options;
    const degraded = (await review.queue.mode()) === 'degraded';
    const limit = degraded ? Math.max(1, Math.floor(concurrency / 2)) : concurrency;
    if (limit === this.#limit) return;
    this.#note = degraded ? `review queue degraded: concurrency ${concurrency} → ${limit}` : undefined;
    log(`worker ${this.workerId}: ${this.#note ?? `review queue normal again: concurrency ${concurrency}`}`);
    this.#limit = limit;
  }

  /** Counts a model call that waited for its endpoint's rate limit, and says so (once per endpoint every 10 s). */
  #rateWait({ endpoint, model }: RateRequest, waitMs: number): void {
    this.#counts.rate_waits = (this.#counts.rate_waits ?? 0) + 1;
    const now = (this.#options._internal?.now ?? Date.now)();
    if (now - (this.#waitLogged.get(endpoint) ?? -Infinity) < WAIT_LOG_MS) return;
    this.#waitLogged.set(endpoint, now);
    this.#options.log(
      `worker ${this.workerId}: ${clean(model)} at ${clean(endpoint)} waits ${Math.ceil(waitMs / 1000)} s for the rate limit`,
    );
  }

  #start(job: RunJob): void {
    const { queue } = this.#options;
    const heartbeat = setInterval(() => void queue.heartbeat(job).catch(() => undefined), Math.max(500, (queue.leaseSeconds * 1000) / 3));
    const work = this.#work(job).finally(() => {
      clearInterval(heartbeat);
      this.#running.delete(job.id);
    });
    this.#running.set(job.id, work);
  }

  async #work(job: RunJob): Promise<void> {
    const { queue, store, ledger, workdir, scratchDir, signer, review, log, trust, bounds, cacheDir, cacheMaxBytes } = this.#options;
    let result: SubmissionResult;
    try {
      result = await runSubmission({
        submissionId: job.submission,
        store,
        ledger,
        workdir,
        ...(scratchDir === undefined ? {} : { scratchDir }),
        ...(signer === undefined ? {} : { signer }),
        ...(review === undefined ? {} : { handoff: review.handoff }),
        rateLimiter: this.#rateLimiter,
        trust,
        ...(bounds === undefined ? {} : { bounds }),
        ...(cacheDir === undefined ? {} : { cacheDir }),
        ...(cacheMaxBytes === undefined ? {} : { cacheMaxBytes }),
      });
    } catch (error) {
      this.#counts.failures = (this.#counts.failures ?? 0) + 1;
      const message = (error as Error).message.split('\n')[0] ?? '';
      // A malformed or hostile submission will not get better: its job ends. Anything else (a ledger write
      // lost to another worker, a database gone) goes back to the queue.
      const refused = !(error instanceof LedgerError) && (error instanceof TypeError || RedlineError.isInstance(error));
      log(`worker ${this.workerId}: submission ${job.submission} not run: ${message} (${refused ? 'refused' : 'handed back'})`);
      // A refused submission says why in its row (`redline status`), and its job ends with the reason.
      if (refused) await store.refuse(job.submission, message, (this.#options._internal?.now ?? Date.now)()).catch(() => undefined);
      await (refused ? queue.complete(job, { kind: 'refused', reason: message }) : queue.handBack(job, message)).catch(() => undefined);
      return;
    }
    if (result.kind === 'busy') {
      await queue.handBack(job, 'run by a live process');
      return;
    }
    await queue.complete(job, result).catch(() => undefined);
    if (result.kind === 'sealed') this.#counts[result.outcome] = (this.#counts[result.outcome] ?? 0) + 1;
    const { running: _running, ...done } = this.counts();
    const tally = Object.entries(done)
      .filter(([key]) => key !== 'failures' && key !== 'rate_waits')
      .map(([key, value]) => `${key} ${value}`)
      .join(', ');
    log(
      `worker ${this.workerId}: ${job.submission} ${result.kind === 'sealed' ? `${result.outcome}${result.resumed ? ' (resumed)' : ''}${treeText(result.workspace)}` : `already sealed ${result.outcome}`} · running ${this.#running.size - 1} · done ${tally || 'none'} · failures ${this.#counts.failures ?? 0}`,
    );
  }

  async #report(): Promise<void> {
    const now = this.#options._internal?.now ?? Date.now;
    const [host = hostname(), pid = String(process.pid)] = this.workerId.split(':');
    const row: FleetRow = {
      workerId: this.workerId,
      host,
      pid: Number(pid),
      state: this.#state,
      concurrency: this.#limit,
      running: this.#running.size,
      counts: this.#counts,
      ...(this.#note === undefined ? {} : { note: this.#note }),
      seenAt: now(),
    };
    await this.#options.store.report(row);
  }
}
