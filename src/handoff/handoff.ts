import type { Brief } from '../core/brief.js';
import type { Outcome, Verification } from '../core/outcome.js';
import type { BudgetAlerts } from '../review/alerts.js';
import type { QueueMode } from '../review/backpressure.js';
import type { ReviewerQueue } from '../review/reviewer-queue.js';
import type { HandoffResult } from './handoff-result.js';

/**
 * Connects runs to the human review queue (docs/review.md, 'Wiring runs to the queue'): the queue's mode and the feedback tuner's limit set a
 * new run's attempt budget, and what a run could not verify is handed to people when it is sealed.
 */
export interface Handoff {
  /** The queue's reviewer view: the handoff enqueues, reads the mode and limit, and reports runs. */
  readonly queue: ReviewerQueue;
  /** Share of `sampled` runs (accepted without a demand red line) sent to review. @default 0.1 */
  readonly sampleRate?: number;
  /** Draws for sampling, injectable for tests. @default Math.random */
  readonly random?: () => number;
  /** Budget-cap alerts (`budgetAlerts({ queue, logger, webhook })`); without it runs are still reported to the queue. */
  readonly alerts?: BudgetAlerts;
}

/**
 * A handoff to a review queue the storage does not hold yet (docs/review.md, 'The queue by default'): no
 * queue shapes the run (its mission's budget holds, and `run.started` records no plan), and the first seal
 * that must go to review opens the queue, creating it, through `open`. Runs that need no review create none.
 */
export interface DeferredHandoff {
  /**
   * Opens (creates) the queue for run `runId`, the one whose seal needs it, and returns the handoff to it;
   * a caller whose runs share the queue returns the same one each time.
   */
  readonly open: (runId: string) => Promise<Handoff>;
  /** Share of `sampled` runs sent to review (and so the share that may create the queue). @default 0.1 */
  readonly sampleRate?: number;
  /** Draws for sampling, injectable for tests. @default Math.random */
  readonly random?: () => number;
}

/** Where a run goes for review: a queue that is open, or one to open when a run first needs it. */
export type RunHandoff = Handoff | DeferredHandoff;

/** Whether the handoff's queue is opened only when a run first needs it. */
export function isDeferred(handoff: RunHandoff): handoff is DeferredHandoff {
  return 'open' in handoff;
}

/**
 * Whether a run's start put it under review: it recorded a queue's plan, or took the default route
 * (`review: 'default'`), whose queue a seal may create. Recovery seals such a run through the queue.
 */
export function startedUnderReview(started: { readonly handoff?: unknown; readonly review?: string | undefined }): boolean {
  return started.handoff !== undefined || started.review === 'default';
}

/** How the queue shapes a new run: recorded in its `run.started` record. */
export interface HandoffPlan {
  readonly mode: QueueMode;
  /** The feedback tuner's attempt limit. */
  readonly attemptLimit: number;
  /** The run's attempt budget: 1 in degraded mode, else the tuner's limit under the mission's own ceiling. */
  readonly maxAttempts: number;
  /** Tags the run's brief gets: `draft` in degraded mode. */
  readonly tags: readonly string[];
}

/**
 * The attempt budget of a new run. In degraded mode (the queue is above its high watermark) the run skips
 * the refinement loop: one attempt, its output tagged `draft`. Otherwise the feedback tuner's limit applies,
 * never above the mission's own `maxAttempts` (the mission's budget is a circuit breaker nothing may raise);
 * a mission that sets none (`undefined`) gets the tuner's limit, raises included.
 */
export async function planHandoff(handoff: Handoff, missionMaxAttempts: number | undefined): Promise<HandoffPlan> {
  const [mode, attemptLimit] = await Promise.all([handoff.queue.mode(), handoff.queue.currentLimit()]);
  const degraded = mode === 'degraded';
  const ceiling = missionMaxAttempts ?? attemptLimit;
  return { mode, attemptLimit, maxAttempts: degraded ? 1 : Math.min(ceiling, attemptLimit), tags: degraded ? ['draft'] : [] };
}

export interface SealedRun {
  readonly runId: string;
  readonly outcome: Outcome;
  readonly verification: Verification;
  readonly stopReason: string;
  readonly brief: Brief;
}

/** What handing a sealed run to review did, and the handoff its report for budget-cap alerts goes to. */
export interface HandedOff {
  readonly result: HandoffResult;
  /** The open handoff; none when a deferred queue was not needed (the run creates no queue). */
  readonly to: Handoff | undefined;
}

/**
 * Hands a run that is being sealed to review when it must be: `unverified` runs (cut off without an
 * objective signal, blocked runs included) always, `sampled` runs at the sample rate. A deferred queue is
 * opened (created) only then. Returns what happened, for the seal record — the enqueued item, an item
 * dropped at capacity, a mode change. A queue that fails (or fails to open) does not stop the seal: the
 * record says `enqueued: false` with the error, and the run stays in the ledger with its brief. `plan` is
 * the one the run started under; none under a deferred queue.
 */
export async function handOff(handoff: RunHandoff, run: SealedRun, plan: HandoffPlan | undefined): Promise<HandedOff> {
  const sampled = run.verification === 'sampled' && (handoff.random ?? Math.random)() < (handoff.sampleRate ?? 0.1);
  const open = isDeferred(handoff) ? undefined : handoff;
  if (run.verification !== 'unverified' && !sampled)
    return { result: { enqueued: false, reason: run.verification === 'sampled' ? 'not sampled' : 'verified' }, to: open };
  const tags = [...(plan?.tags ?? []), ...(sampled ? ['sample'] : [])];
  let to = open;
  let result: Awaited<ReturnType<Handoff['queue']['enqueue']>>;
  try {
    to ??= await (handoff as DeferredHandoff).open(run.runId);
    result = await to.queue.enqueue(run.brief, { tags });
  } catch (error) {
    return { result: { enqueued: false, reason: 'queue error', error: (error as Error).message, tags }, to };
  }
  return {
    result: {
      enqueued: result.item !== undefined,
      ...(result.item === undefined ? {} : { itemId: result.item.id }),
      tags,
      ...(result.dropped === undefined
        ? {}
        : { dropped: { itemId: result.dropped.id, runId: result.dropped.runId, priority: result.dropped.priority } }),
      mode: result.mode,
      ...(result.modeChanged === undefined ? {} : { modeChanged: result.modeChanged }),
    },
    to,
  };
}

/**
 * Reports a sealed run for budget-cap alerts. The run is sealed already: a queue that fails here costs
 * the alert window one run, said as a process warning, and nothing else.
 */
export async function reportRun(handoff: Handoff, run: { runId: string; stopReason: string }): Promise<void> {
  const report = { runId: run.runId, budgetCapped: run.stopReason.startsWith('budget_') };
  try {
    if (handoff.alerts !== undefined) await handoff.alerts.runFinished(report);
    else await handoff.queue.recordRun(report);
  } catch (error) {
    process.emitWarning(
      `the review queue did not take the report of run ${run.runId} for budget-cap alerts: ${(error as Error).message}`,
      'RedlineWarning',
    );
  }
}
