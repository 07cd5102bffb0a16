import { createHash } from 'node:crypto';
import { canonicalJson } from '../core/canonical-json.js';
import { GENESIS } from '../core/hash-chain.js';
import type { RunRow } from './ledger.js';

/**
 * A digest of a ledger's history, `<count>:<journal>:<sha256>`: the SHA-256 over the first `count` runs in
 * start order (start time, then run id by code point), one canonical `[runId, lastHash]` line each, then
 * one canonical `["review journal", journal, hash]` line: the review journal's first `journal` entries
 * by their chain hash. `count` is the length of the longest prefix of runs that are all sealed: a sealed
 * run never changes, and the journal only grows, so the digest can be checked at any later time, over
 * the first `count` runs and `journal` entries then, whatever was added. A digest of two fields,
 * `<count>:<sha256>` (written before the journal was covered), covers the runs only.
 */
export interface LedgerDigest {
  readonly digest: string;
  /** Runs the digest covers. */
  readonly count: number;
  /** Runs in the ledger. */
  readonly total: number;
  /** Review journal entries the digest covers (all the journal holds). */
  readonly journal: number;
  /** The first run not sealed (where the covered prefix ends), when there is one. */
  readonly firstUnsealed?: string;
}

/** A prefix of the review journal as the digest covers it: its first `count` entries and their chain hash. */
export interface JournalHeadPrefix {
  readonly count: number;
  readonly hash: string;
  /** Entries the journal holds. */
  readonly total: number;
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

const NO_JOURNAL: JournalHeadPrefix = Object.freeze({ count: 0, hash: GENESIS, total: 0 });

const line = (run: RunRow): string => `${canonicalJson([run.runId, run.lastHash])}\n`;
const journalLine = ({ count, hash }: JournalHeadPrefix): string => `${canonicalJson(['review journal', count, hash])}\n`;

/**
 * The digest of the ledger's runs and review journal as they stand (`redline ledger head`), reading the
 * runs once; `journal` is the whole journal's prefix.
 * @default journal: none (count 0), for a ledger without a review queue
 */
export async function ledgerDigest(runs: DigestRuns, journal: JournalHeadPrefix = NO_JOURNAL): Promise<LedgerDigest> {
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
  hash.update(journalLine(journal));
  return {
    digest: `${count}:${journal.count}:${hash.digest('hex')}`,
    count,
    total,
    journal: journal.count,
    ...(firstUnsealed === undefined ? {} : { firstUnsealed }),
  };
}

/**
 * Parses `<count>:<journal>:<sha256>`, or `<count>:<sha256>` (runs only, as heads were printed before
 * they covered the journal); a `TypeError` naming what is wrong otherwise.
 */
export function parseDigest(text: string): { readonly count: number; readonly journal?: number; readonly hash: string } {
  const match = /^(\d{1,15}):(?:(\d{1,15}):)?([0-9a-f]{64})$/.exec(text.trim());
  if (match === null)
    throw new TypeError(
      `Expected a ledger digest COUNT:JOURNAL:SHA256 (as \`redline ledger head\` prints it), got ${JSON.stringify(text)}`,
    );
  return { count: Number(match[1]), ...(match[2] === undefined ? {} : { journal: Number(match[2]) }), hash: match[3] as string };
}

/** Whether the ledger's history up to a digest taken earlier is unchanged. */
export interface DigestCheck {
  readonly ok: boolean;
  /** Runs the digest covers. */
  readonly count: number;
  /** Runs in the ledger now. */
  readonly total: number;
  /** Journal entries the digest covers (absent for a runs-only digest). */
  readonly journal?: number;
  readonly detail: string;
}

/**
 * Checks a digest taken earlier against the ledger's runs and journal now, reading the runs once: the
 * first `count` runs in start order, then the journal's first `journal` entries (`journal`: that prefix
 * as it is now, read by the caller), must hash to it. Runs started and entries appended later are
 * allowed; a run of that prefix deleted, altered (its last hash changed) or inserted before its end, or
 * a journal entry of it changed or deleted (hashes recomputed or not), changes the hash.
 */
export async function checkDigest(runs: DigestRuns, digest: string, journal?: JournalHeadPrefix): Promise<DigestCheck> {
  const parsed = parseDigest(digest);
  const { count, hash } = parsed;
  const covers = parsed.journal === undefined ? {} : { journal: parsed.journal };
  const prefix = createHash('sha256');
  let total = 0;
  for await (const run of startOrder(runs)) {
    if (total < count) prefix.update(line(run));
    total += 1;
  }
  if (total < count)
    return {
      ok: false,
      count,
      total,
      ...covers,
      detail: `the digest covers ${count} run(s), the ledger holds ${total}: runs were deleted`,
    };
  if (parsed.journal !== undefined) {
    const entries = journal ?? NO_JOURNAL;
    if (entries.total < parsed.journal || entries.count !== parsed.journal) {
      return {
        ok: false,
        count,
        total,
        ...covers,
        detail: `the digest covers ${parsed.journal} review journal entries, the ledger holds ${entries.total}: entries were deleted`,
      };
    }
    prefix.update(journalLine(entries));
  }
  const what =
    parsed.journal === undefined ? `the first ${count} run(s)` : `the first ${count} run(s) and ${parsed.journal} review journal entries`;
  if (prefix.digest('hex') !== hash) {
    return {
      ok: false,
      count,
      total,
      ...covers,
      detail:
        parsed.journal === undefined
          ? `${what} in start order do not match the digest: a run among them was deleted, altered or inserted`
          : `${what} do not match the digest: a run among them was deleted, altered or inserted, or a journal entry among them changed`,
    };
  }
  const added = `${total - count} run(s)${parsed.journal === undefined ? '' : ` and ${(journal?.total ?? 0) - parsed.journal} journal entries`} were added since`;
  return {
    ok: true,
    count,
    total,
    ...covers,
    detail: `${what} match the digest; ${added}${parsed.journal === undefined ? ' (a runs-only digest: the review journal is not covered)' : ''}`,
  };
}
