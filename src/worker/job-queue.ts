import { MissingPeerError } from '../errors/missing-peer-error.js';
import type { PostgresTarget } from './postgres-target.js';

/** The queue submissions wait in. */
export const RUN_QUEUE = 'redline-runs';

/** A job as the worker sees it: one submission to run. */
export interface RunJob {
  readonly id: string;
  readonly submission: string;
}

/** The slice of a pg-boss 10 instance this folder uses. */
interface Boss {
  start(): Promise<unknown>;
  stop(options?: { graceful?: boolean; wait?: boolean; close?: boolean; timeout?: number }): Promise<void>;
  on(event: 'error', listener: (error: Error) => void): unknown;
  createQueue(name: string, options?: Record<string, unknown>): Promise<void>;
  send(name: string, data: object, options?: Record<string, unknown>): Promise<string | null>;
  fetch<T>(name: string, options: { batchSize: number }): Promise<{ id: string; data: T }[]>;
  complete(name: string, id: string, data?: object): Promise<unknown>;
  fail(name: string, id: string, data?: object): Promise<unknown>;
  getQueueSize(name: string, options?: { before?: string }): Promise<number | null>;
  getDb(): { executeSql(text: string, values: unknown[]): Promise<{ rows: Record<string, unknown>[] }> };
}

export interface JobQueueOptions {
  readonly target: PostgresTarget;
  /**
   * How long a job stays with a worker that stops heartbeating before another may take it (pg-boss's
   * expiry, checked by its maintenance every lease / 2 seconds). @default 30
   */
  readonly leaseSeconds?: number;
  /** Connections pg-boss keeps. @default 2 */
  readonly connections?: number;
  /** Where pg-boss's own errors go (a lost connection it retries). */
  readonly onError?: (error: Error) => void;
}

/**
 * The fleet's job queue: pg-boss 10 (an optional peer, loaded only here) in its own schema beside the
 * ledger's. A job is a submission id; pg-boss hands each to one worker, expires it when its worker stops
 * heartbeating, and hands it out again (up to `retryLimit` times).
 */
export class JobQueue {
  readonly #boss: Boss;
  readonly #jobSchema: string;
  readonly leaseSeconds: number;

  private constructor(boss: Boss, jobSchema: string, leaseSeconds: number) {
    this.#boss = boss;
    this.#jobSchema = jobSchema;
    this.leaseSeconds = leaseSeconds;
  }

  static async open({ target, leaseSeconds = 30, connections = 2, onError }: JobQueueOptions): Promise<JobQueue> {
    if (!Number.isInteger(leaseSeconds) || leaseSeconds < 2)
      throw new TypeError(`Expected a lease of at least 2 whole seconds, got ${leaseSeconds}`);
    const { PgBoss } = await MissingPeerError.load(
      async () => {
        const loaded = (await import('pg-boss')) as unknown as { default: new (options: object) => Boss };
        return { PgBoss: loaded.default };
      },
      { packageName: 'pg-boss', purpose: 'run redline submit, worker and status' },
    );
    const boss = new PgBoss({
      connectionString: target.connection,
      schema: target.jobSchema,
      max: connections,
      schedule: false,
      supervise: true,
      maintenanceIntervalSeconds: Math.max(1, Math.floor(leaseSeconds / 2)),
    });
    boss.on('error', onError ?? (() => undefined));
    await boss.start();
    await boss.createQueue(RUN_QUEUE, { retryLimit: 50, retryDelay: 0, expireInSeconds: leaseSeconds });
    return new JobQueue(boss, target.jobSchema, leaseSeconds);
  }

  /** Queues one submission. */
  async send(submission: string): Promise<void> {
    await this.#boss.send(RUN_QUEUE, { submission }, { expireInSeconds: this.leaseSeconds });
  }

  /** Takes up to `count` jobs (each now leased to this worker). */
  async take(count: number): Promise<RunJob[]> {
    if (count < 1) return [];
    const jobs = await this.#boss.fetch<{ submission?: unknown }>(RUN_QUEUE, { batchSize: count });
    return jobs.flatMap((job) => (typeof job.data.submission === 'string' ? [{ id: job.id, submission: job.data.submission }] : []));
  }

  /**
   * Renews a job's lease: its start time moves to now, so pg-boss's expiry (start + lease) moves on.
   * Returns false when the job is no longer this worker's to hold (expired and handed out again).
   */
  async heartbeat(job: RunJob): Promise<boolean> {
    const { rows } = await this.#boss
      .getDb()
      .executeSql(`UPDATE "${this.#jobSchema}".job SET started_on = now() WHERE name = $1 AND id = $2 AND state = 'active' RETURNING id`, [
        RUN_QUEUE,
        job.id,
      ]);
    return rows.length === 1;
  }

  async complete(job: RunJob, data: object): Promise<void> {
    await this.#boss.complete(RUN_QUEUE, job.id, data);
  }

  /** Gives a job back: pg-boss hands it out again. */
  async handBack(job: RunJob, reason: string): Promise<void> {
    await this.#boss.fail(RUN_QUEUE, job.id, { reason });
  }

  /** Jobs waiting (created or to retry) and jobs leased now. */
  async sizes(): Promise<{ waiting: number; active: number }> {
    const waiting = (await this.#boss.getQueueSize(RUN_QUEUE, { before: 'active' })) ?? 0;
    const upToActive = (await this.#boss.getQueueSize(RUN_QUEUE, { before: 'completed' })) ?? 0;
    return { waiting, active: upToActive - waiting };
  }

  async close(): Promise<void> {
    await this.#boss.stop({ graceful: false, wait: true, close: true });
  }
}
