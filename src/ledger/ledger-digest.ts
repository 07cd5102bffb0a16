import { createHash } from 'node:crypto';
import { canonicalJson } from '../core/canonical-json.js';
import type { RunRow } from './ledger.js';

/**
 * A digest of a ledger's history, `<count>:<sha256>`: the SHA-256 over the first `count` runs in start
 * order (start time, then run id by code point), one canonical `[runId, lastHash]` line each. `count`
 * is the length of the longest prefix of runs that are all sealed: a sealed run never changes, so the
 * digest can be checked at any later time, over the first `count` runs then, whatever runs were added.
 */
export interface LedgerDigest {
  readonly digest: string;
  /** Runs the digest covers. */
  readonly count: number;
  /** Runs in the ledger. */
  readonly total: number;
  /** The first run not sealed (where the covered prefix ends), when there is one. */
  readonly firstUnsealed?: string;
}

/** Runs a digest reads: an array (in any order) or a stream in start order (`streamRuns`). */
export type DigestRuns = readonly RunRow[] | AsyncIterable<RunRow>;

const byId = (a: RunRow, b: RunRow): number => (a.runId < b.runId ? -1 : a.runId > b.runId ? 1 : 0);

/**
 * Runs in start order, run ids compared by this code rather than by any database's collation. A stream
 * comes ordered by start time; only the runs sharing one start time are held, to order their ids.
 */
async function* startOrder(runs: DigestRuns): AsyncGenerator<RunRow> {
  if (Array.isArray(runs)) {
    yield* [...(runs as readonly RunRow[])].sort((a, b) => a.startedAt - b.startedAt || byId(a, b));
    return;
  }
  let group: RunRow[] = [];
  for await (const run of runs as AsyncIterable<RunRow>) {
    const at = group[0]?.startedAt;
    if (at !== undefined && run.startedAt !== at) {
      if (run.startedAt < at)
        throw new TypeError(`Expected runs in start order, got run ${run.runId} (started ${run.startedAt}) after ${at}`);
      yield* group.sort(byId);
      group = [];
    }
    group.push(run);
  }
  yield* group.sort(byId);
}

const line = (run: RunRow): string => `${canonicalJson([run.runId, run.lastHash])}\n`;

/** The digest of the ledger's runs as they stand (`redline ledger head`), reading them once. */
export async function ledgerDigest(runs: DigestRuns): Promise<LedgerDigest> {
  const hash = createHash('sha256');
  let count = 0;
  let total = 0;
  let firstUnsealed: string | undefined;
  for await (const run of startOrder(runs)) {
    total += 1;
    if (firstUnsealed === undefined && !run.sealed) firstUnsealed = run.runId;
    if (firstUnsealed !== undefined) continue;
    hash.update(line(run));
    count += 1;
  }
  return { digest: `${count}:${hash.digest('hex')}`, count, total, ...(firstUnsealed === undefined ? {} : { firstUnsealed }) };
}

/** Parses `<count>:<sha256>`; a `TypeError` naming what is wrong otherwise. */
export function parseDigest(text: string): { readonly count: number; readonly hash: string } {
  const match = /^(\d{1,15}):([0-9a-f]{64})$/.exec(text.trim());
  if (match === null)
    throw new TypeError(`Expected a ledger digest COUNT:SHA256 (as \`redline ledger head\` prints it), got ${JSON.stringify(text)}`);
  return { count: Number(match[1]), hash: match[2] as string };
}

/** Whether the ledger's history up to a digest taken earlier is unchanged. */
export interface DigestCheck {
  readonly ok: boolean;
  /** Runs the digest covers. */
  readonly count: number;
  /** Runs in the ledger now. */
  readonly total: number;
  readonly detail: string;
}

/**
 * Checks a digest taken earlier against the ledger's runs now, reading them once: the first `count` runs
 * in start order must hash to it. Runs started later are allowed; a run of that prefix deleted, altered (its last hash
 * changed) or inserted before its end changes the hash.
 */
export async function checkDigest(runs: DigestRuns, digest: string): Promise<DigestCheck> {
  const { count, hash } = parseDigest(digest);
  const prefix = createHash('sha256');
  let total = 0;
  for await (const run of startOrder(runs)) {
    if (total < count) prefix.update(line(run));
    total += 1;
  }
  if (total < count)
    return { ok: false, count, total, detail: `the digest covers ${count} run(s), the ledger holds ${total}: runs were deleted` };
  if (prefix.digest('hex') !== hash) {
    return {
      ok: false,
      count,
      total,
      detail: `the first ${count} run(s) in start order do not match the digest: a run among them was deleted, altered or inserted`,
    };
  }
  return { ok: true, count, total, detail: `the first ${count} run(s) match the digest; ${total - count} run(s) were added since` };
}
