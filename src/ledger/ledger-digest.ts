import { createHash } from 'node:crypto';
import { canonicalJson } from '../loop/canonical-json.js';
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

/** Runs in start order, independent of any database's collation. */
function startOrder(runs: readonly RunRow[]): RunRow[] {
  return [...runs].sort((a, b) => a.startedAt - b.startedAt || (a.runId < b.runId ? -1 : a.runId > b.runId ? 1 : 0));
}

function hashOf(runs: readonly RunRow[]): string {
  const hash = createHash('sha256');
  for (const run of runs) hash.update(`${canonicalJson([run.runId, run.lastHash])}\n`);
  return hash.digest('hex');
}

/** The digest of the ledger's runs as they stand (`redline ledger head`). */
export function ledgerDigest(runs: readonly RunRow[]): LedgerDigest {
  const ordered = startOrder(runs);
  const unsealed = ordered.findIndex((run) => !run.sealed);
  const count = unsealed === -1 ? ordered.length : unsealed;
  const firstUnsealed = unsealed === -1 ? undefined : ordered[unsealed]?.runId;
  return {
    digest: `${count}:${hashOf(ordered.slice(0, count))}`,
    count,
    total: ordered.length,
    ...(firstUnsealed === undefined ? {} : { firstUnsealed }),
  };
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
 * Checks a digest taken earlier against the ledger's runs now: the first `count` runs in start order
 * must hash to it. Runs started later are allowed; a run of that prefix deleted, altered (its last hash
 * changed) or inserted before its end changes the hash.
 */
export function checkDigest(runs: readonly RunRow[], digest: string): DigestCheck {
  const { count, hash } = parseDigest(digest);
  const ordered = startOrder(runs);
  if (ordered.length < count)
    return {
      ok: false,
      count,
      total: ordered.length,
      detail: `the digest covers ${count} run(s), the ledger holds ${ordered.length}: runs were deleted`,
    };
  if (hashOf(ordered.slice(0, count)) !== hash) {
    return {
      ok: false,
      count,
      total: ordered.length,
      detail: `the first ${count} run(s) in start order do not match the digest: a run among them was deleted, altered or inserted`,
    };
  }
  return {
    ok: true,
    count,
    total: ordered.length,
    detail: `the first ${count} run(s) match the digest; ${ordered.length - count} run(s) were added since`,
  };
}
