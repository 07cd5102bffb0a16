import { makeBrief, type Brief } from '../core/brief.js';
import { StopReason } from '../core/outcome.js';
import { ruleIdOf } from '../review/filter-rules.js';
import type { ReviewerQueue } from '../review/reviewer-queue.js';
import type { ReviewEntry } from '../review/types.js';
import type { Decision, Evidence, Judge } from './judge.js';
import { humanRequestKey } from './request-key.js';
import { routingJudge } from './routing-judge.js';

export interface HumanJudgeOptions {
  /** The review queue the request goes to and the verdict comes from: its reviewer view is all the judge uses. */
  readonly queue: ReviewerQueue;
  /** How long to wait for a verdict, from when the request was enqueued; then the run blocks (`human_timeout`). */
  readonly timeoutMs: number;
  /** How often the queue is asked for the verdict. @default 5000 */
  readonly pollIntervalMs?: number;
  /** What a rejection does: `retry` (another attempt, within the budgets) or `fail`. @default 'retry' */
  readonly onReject?: 'retry' | 'fail';
  /** Told of each request once it is in the queue (the CLI says which item waits for a verdict). */
  readonly onRequest?: (request: { readonly itemId: string; readonly attempt: number; readonly deadline: number }) => void;
  /** Injectable clock (it must agree with the queue's) and wait, for tests. */
  readonly _internal?: { readonly now?: () => number; readonly sleep?: (ms: number, signal: AbortSignal) => Promise<void> };
}

function sleepFor(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) {
      reject(signal.reason);
      return;
    }
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

function requestBrief(runId: string, evidence: Evidence, onReject: 'retry' | 'fail'): Brief {
  return makeBrief({
    runId: humanRequestKey(runId, evidence.attempt),
    task: evidence.mission.goal,
    taskType: evidence.mission.taskType,
    priority: evidence.mission.priority,
    candidate: evidence.candidate,
    cutoffReason: `judge: approve to accept attempt ${evidence.attempt} of run ${runId}, reject to ${onReject === 'retry' ? 'refine it' : 'fail the run'}`,
    attempts: evidence.attempt,
    verification: 'unverified',
    findings: evidence.findings,
    ...(evidence.mission.brief?.stripPatterns === undefined ? {} : { stripPatterns: evidence.mission.brief.stripPatterns }),
  });
}

function positive(value: number, what: string): number {
  if (!Number.isFinite(value) || value <= 0) throw new TypeError(`Expected ${what} to be a positive number of milliseconds, got ${value}`);
  return value;
}

/**
 * A judge that asks a person through the review queue (docs/judges.md, 'Human judge'). When an attempt's candidate could be
 * accepted (a proposal was made and acceptance holds), it enqueues the attempt as a brief and polls for
 * the verdict: approve → `accept` (`human_approved`), reject → `retry` or `fail` per `onReject`
 * (`human_rejected`), no verdict within `timeoutMs` → `block` (`human_timeout`), the request dropped at
 * capacity → `block` (`human_unavailable`). Every other attempt — the baseline, failing checks, a scope
 * violation, a missing approval — has nothing a person could accept, and goes by the routing table.
 * The runtime validates the decision like any judge's.
 * @example
 * const judge = humanJudge({ queue: await SqliteReviewQueue.open({ database: '.redline/redline.db' }), timeoutMs: 3_600_000 });
 * await runMission({ mission, judge });
 */
export function humanJudge({
  queue,
  timeoutMs,
  pollIntervalMs = 5_000,
  onReject = 'retry',
  onRequest,
  _internal = {},
}: HumanJudgeOptions): Judge {
  if (typeof queue?.enqueue !== 'function' || typeof queue.get !== 'function')
    throw new TypeError(`Expected a review queue, got ${queue === null ? 'null' : typeof queue}`);
  positive(timeoutMs, 'timeoutMs');
  positive(pollIntervalMs, 'pollIntervalMs');
  if (onReject !== 'retry' && onReject !== 'fail')
    throw new TypeError(`Expected onReject to be "retry" or "fail", got ${String(onReject)}`);
  const { now = Date.now, sleep = sleepFor } = _internal;
  const routing = routingJudge();
  return {
    name: 'human',
    async decide(evidence, { signal, runId }): Promise<Decision> {
      // The routing table decides synchronously and only ever returns a decision.
      if (evidence.attempt === 0 || !evidence.acceptance.acceptable) return routing.decide(evidence, { signal }) as Decision;
      if (typeof runId !== 'string' || runId.length === 0)
        throw new TypeError(`Expected the run id in the decide options, got ${String(runId)}`);
      const cites = [...new Set(evidence.findings.map((item) => item.check))];
      // Enqueuing the same attempt again (a resumed run) returns the item already there, with its verdict if it has one.
      const { item } = await queue.enqueue(requestBrief(runId, evidence, onReject), { tags: ['judge'] });
      if (item === undefined)
        return {
          transition: 'block',
          reason: StopReason.humanUnavailable,
          cites,
          detail: 'the review queue dropped the request at capacity',
        };
      const deadline = item.enqueuedAt + timeoutMs;
      onRequest?.({ itemId: item.id, attempt: evidence.attempt, deadline });
      let entry: ReviewEntry | undefined;
      for (;;) {
        entry = await queue.get(item.id);
        if (entry?.verdict !== undefined || entry === undefined || entry.status === 'dropped') break;
        const left = deadline - now();
        if (left <= 0) break;
        await sleep(Math.min(pollIntervalMs, left), signal);
      }
      const verdict = entry?.verdict;
      if (verdict === undefined) {
        return entry === undefined || entry.status === 'dropped'
          ? { transition: 'block', reason: StopReason.humanUnavailable, cites, detail: `review item ${item.id} was dropped at capacity` }
          : {
              transition: 'block',
              reason: StopReason.humanTimeout,
              cites,
              detail: `no verdict on review item ${item.id} within ${timeoutMs} ms`,
            };
      }
      const by = `review item ${item.id} ${verdict.decision === 'approve' ? 'approved' : 'rejected'} by ${verdict.reviewer} (${verdict.label})${verdict.comment === undefined ? '' : `: ${verdict.comment}`}`;
      if (verdict.decision === 'approve') return { transition: 'accept', reason: StopReason.humanApproved, cites, detail: by };
      // A filter rule decided it: its action says what the rejection does (return: refine with its feedback).
      // A rule decides an item only on arrival, under settings that hold it, and rules are never deleted:
      // the settings this queue loaded (at that enqueue, or when a resumed run opened it) hold the rule.
      const ruleId = ruleIdOf(verdict.reviewer);
      const rule = ruleId === undefined ? undefined : queue.config.filters.find((candidate) => candidate.id === ruleId);
      const transition = rule === undefined ? onReject : rule.action === 'return' ? 'retry' : 'fail';
      return { transition, reason: StopReason.humanRejected, cites, detail: by };
    },
  };
}
