import { OMITTED_REASONS, type BaselineFile } from '../core/brief-baseline.js';
import { RULE_REVIEWER_PREFIX } from './filter-rules.js';
import type { Brief } from '../core/brief.js';
import type { Verification } from '../core/outcome.js';
import type { ReviewClaim, ReviewEntry, ReviewItem, ReviewStatus, Verdict } from './types.js';

const VERIFICATIONS: readonly Verification[] = ['verified', 'sampled', 'unverified'];

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** A file's content before the run as a brief may hold it: text, null (absent), or why it was left out. */
function isBaselineFile(value: unknown): value is BaselineFile {
  if (value === null || typeof value === 'string') return true;
  return (
    isObject(value) &&
    (OMITTED_REASONS as readonly unknown[]).includes(value.omitted) &&
    Number.isSafeInteger(value.bytes) &&
    (value.bytes as number) >= 0
  );
}

/** Whether `baseline` holds exactly the paths of `files`, each as {@link isBaselineFile}. */
function isBaselineOf(baseline: unknown, files: object): boolean {
  if (!isObject(baseline)) return false;
  const paths = Object.keys(baseline);
  return paths.length === Object.keys(files).length && paths.every((file) => Object.hasOwn(files, file) && isBaselineFile(baseline[file]));
}

/** The item a brief becomes; refuses a malformed brief with "Expected X, got Y". */
export function briefItem(
  brief: Brief,
  { id, tags = [], enqueuedAt }: { id: string; tags?: readonly string[]; enqueuedAt: number },
): ReviewItem {
  const expect = (ok: boolean, what: string, got: unknown): void => {
    if (!ok) throw new TypeError(`Expected ${what}, got ${JSON.stringify(got)}`);
  };
  expect(typeof brief === 'object' && brief !== null, 'a brief object', brief);
  expect(typeof brief.runId === 'string' && brief.runId.length > 0, 'brief.runId to be a non-empty string', brief.runId);
  expect(typeof brief.task === 'string', 'brief.task to be a string', brief.task);
  expect(
    brief.taskType === undefined || (typeof brief.taskType === 'string' && brief.taskType.length > 0),
    'brief.taskType to be a non-empty string',
    brief.taskType,
  );
  expect(typeof brief.cutoffReason === 'string', 'brief.cutoffReason to be a string', brief.cutoffReason);
  expect(brief.lastError === undefined || typeof brief.lastError === 'string', 'brief.lastError to be a string', brief.lastError);
  expect(Number.isFinite(brief.priority), 'brief.priority to be a finite number', brief.priority);
  expect(Number.isInteger(brief.attempts) && brief.attempts >= 0, 'brief.attempts to be a whole number', brief.attempts);
  expect(VERIFICATIONS.includes(brief.verification), `brief.verification to be one of ${VERIFICATIONS.join(', ')}`, brief.verification);
  expect(
    typeof brief.finalOutput === 'object' &&
      brief.finalOutput !== null &&
      typeof brief.finalOutput.files === 'object' &&
      brief.finalOutput.files !== null,
    'brief.finalOutput.files to be an object',
    brief.finalOutput,
  );
  const baseline = brief.finalOutput.baseline;
  expect(
    baseline === undefined || isBaselineOf(baseline, brief.finalOutput.files),
    'brief.finalOutput.baseline to hold exactly the paths of brief.finalOutput.files, each a string, null or { omitted, bytes }',
    baseline,
  );
  expect(
    brief.failing === undefined ||
      (Array.isArray(brief.failing) &&
        brief.failing.every(
          (item) =>
            typeof item === 'object' &&
            item !== null &&
            typeof item.check === 'string' &&
            typeof item.message === 'string' &&
            Array.isArray(item.reasonCodes) &&
            item.reasonCodes.every((code: unknown) => typeof code === 'string'),
        )),
    'brief.failing to be findings with check, reasonCodes and message',
    brief.failing,
  );
  expect(
    brief.failingOmitted === undefined || (Number.isInteger(brief.failingOmitted) && brief.failingOmitted > 0),
    'brief.failingOmitted to be a positive whole number',
    brief.failingOmitted,
  );
  expect(
    brief.stripped === undefined ||
      (Array.isArray(brief.stripped) &&
        brief.stripped.every((item) => typeof item?.pattern === 'string' && Number.isInteger(item.count) && item.count > 0)),
    'brief.stripped to be patterns with a positive count',
    brief.stripped,
  );
  expect(Array.isArray(tags) && tags.every((tag) => typeof tag === 'string' && tag.length > 0), 'tags to be non-empty strings', tags);
  return {
    id,
    runId: brief.runId,
    task: brief.task,
    ...(brief.taskType === undefined ? {} : { taskType: brief.taskType }),
    finalOutput: {
      files: { ...brief.finalOutput.files },
      ...(brief.finalOutput.value === undefined ? {} : { value: brief.finalOutput.value }),
      ...(baseline === undefined ? {} : { baseline: structuredClone(baseline) }),
    },
    cutoffReason: brief.cutoffReason,
    ...(brief.lastError === undefined ? {} : { lastError: brief.lastError }),
    ...(brief.failing === undefined ? {} : { failing: brief.failing.map((item) => structuredClone(item)) }),
    ...(brief.failingOmitted === undefined ? {} : { failingOmitted: brief.failingOmitted }),
    ...(brief.stripped === undefined ? {} : { stripped: brief.stripped.map(({ pattern, count }) => ({ pattern, count })) }),
    attempts: brief.attempts,
    verification: brief.verification,
    priority: brief.priority,
    tags: [...new Set(tags)],
    enqueuedAt,
  };
}

/** Where a stored item stands at `now`: open items are `claimed` only while their lease runs. */
export function entryOf({
  item,
  state,
  claims,
  claim,
  verdict,
  now,
}: {
  item: ReviewItem;
  state: 'open' | 'decided' | 'dropped';
  claims: number;
  claim?: ReviewClaim;
  verdict?: Verdict;
  now: number;
}): ReviewEntry {
  const live = state === 'open' && claim !== undefined && claim.leaseUntil > now;
  const status: ReviewStatus = state === 'open' ? (live ? 'claimed' : 'queued') : state;
  return { item, status, claims, ...(live ? { claim } : {}), ...(verdict === undefined ? {} : { verdict }) };
}

export function assertReviewer(reviewer: unknown): asserts reviewer is string {
  if (typeof reviewer !== 'string' || reviewer.trim().length === 0)
    throw new TypeError(`Expected the reviewer to be a non-empty string, got ${JSON.stringify(reviewer)}`);
  // The names filter rules decide under: a person cannot give a verdict in a rule's name.
  if (reviewer.startsWith(RULE_REVIEWER_PREFIX))
    throw new TypeError(`Expected a reviewer's name, got ${JSON.stringify(reviewer)}: names starting with filter: are the filter rules'`);
}

/** The lease of a claim, validated. */
export function leaseOf(leaseMs: number | undefined): number {
  const lease = leaseMs ?? 15 * 60_000;
  if (!Number.isFinite(lease) || lease <= 0) throw new TypeError(`Expected leaseMs to be a positive number, got ${lease}`);
  return lease;
}

/** Optional page size, validated. */
export function limitOf(limit: number | undefined): number | undefined {
  if (limit !== undefined && (!Number.isInteger(limit) || limit < 0))
    throw new TypeError(`Expected limit to be a non-negative integer, got ${limit}`);
  return limit;
}
