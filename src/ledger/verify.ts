import { chainHash, GENESIS, type ChainProblem } from '../core/hash-chain.js';
import { RecordParseError } from '../errors/record-parse-error.js';
import { streamHistory } from './history.js';
import { parseRunRecord } from './run-records.js';
import { linkProblem } from './run-link.js';
import { summaryProblem } from './run-summary.js';
import type { Ledger, RunRow, StoredRecord } from './ledger.js';
import { checkSeal, type PublicKeyEntry, type SignatureCheck, type SignatureStatus } from './seal-signature.js';

/** Why a run's chain does not verify. */

export interface RunVerification {
  readonly runId: string;
  readonly ok: boolean;
  readonly records: number;
  readonly bytes: number;
  /** The first bad record: its `seq` and what is wrong with it. */
  readonly firstBad?: { readonly seq: number; readonly problem: ChainProblem; readonly detail: string };
  /** The seal's signature, when signatures were checked (`verifyLedger` with `signatures`). */
  readonly signature?: SignatureCheck;
  /** Why the signature makes the run fail (its chain verifies), when it does. */
  readonly signatureProblem?: string;
  /** Why the run's link to the run it resolves does not hold (its chain verifies), when it does not (`verifyLedger`). */
  readonly linkProblem?: string;
  /** Why one of the run's records does not parse as its type (its chain verifies), when one does not (`verifyLedger`). */
  readonly recordProblem?: string;
  /**
   * Why what the ledger derived from the run's records (its row's outcome, verification and stop reason,
   * the summary the reports tally) disagrees with them, when it does (`verifyLedger`): its chain verifies,
   * the derived data does not.
   */
  readonly summaryProblem?: string;
}

/** How `verifyLedger` checks seal signatures. */
export interface SignatureOptions {
  /** The public keys a seal may be signed with (any whose key id matches). */
  readonly keys: readonly PublicKeyEntry[];
  /** A run sealed without a signature fails (else it is reported `unsigned`). */
  readonly require?: boolean;
  /**
   * A seal signed by a key not in `keys` is reported, not failed: for keys found locally rather than
   * given, where other machines' runs are expected. Ignored with `require`.
   */
  readonly allowOtherKeys?: boolean;
}

function bad(run: RunRow, records: number, bytes: number, seq: number, problem: ChainProblem, detail: string): RunVerification {
  return { runId: run.runId, ok: false, records, bytes, firstBad: { seq, problem, detail } };
}

/** The envelope fields of a stored body, whatever else it holds; undefined when it is not a JSON object. */
function bodyField(body: string): { seq?: unknown; runId?: unknown; type?: unknown } | undefined {
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch {
    return undefined;
  }
  return typeof value === 'object' && value !== null ? value : undefined;
}

/**
 * Why a run's records do not read back as the records a run writes (the first that does not parse, with
 * the field), or undefined when every one does. Its chain may verify: the bytes are as written, but not
 * in a shape redline reads.
 */
export function recordProblem(rows: readonly StoredRecord[]): string | undefined {
  for (const row of rows) {
    try {
      parseRunRecord(row);
    } catch (error) {
      if (error instanceof RecordParseError)
        return `record ${error.seq} (${error.type}): ${error.path === '' ? '' : `${error.path}: `}${error.problem}`;
      throw error;
    }
  }
  return undefined;
}

/**
 * Checks one run's chain as stored: every record's hash covers its predecessor's hash and its own body,
 * `seq` runs 0, 1, 2, … without gaps, nothing follows the seal, and the run row's count and last hash
 * match the records (so a deleted tail shows as truncation).
 */
export function verifyRun(run: RunRow, rows: readonly StoredRecord[]): RunVerification {
  let prevHash = GENESIS;
  let sealedAt: number | undefined;
  let bytes = 0;
  for (const [index, row] of rows.entries()) {
    bytes += row.body.length;
    if (sealedAt !== undefined)
      return bad(run, rows.length, bytes, row.seq, 'appended_after_seal', `record ${row.seq} follows the seal at record ${sealedAt}`);
    if (row.seq !== index) {
      return row.seq > index
        ? bad(
            run,
            rows.length,
            bytes,
            index,
            'missing',
            `record ${index}${row.seq - index > 1 ? `–${row.seq - 1}` : ''} is missing (next stored is ${row.seq})`,
          )
        : bad(run, rows.length, bytes, row.seq, 'reordered', `record ${row.seq} is stored out of order`);
    }
    if (chainHash(row.prevHash, row.body) !== row.hash)
      return bad(run, rows.length, bytes, row.seq, 'modified', `record ${row.seq} does not match its hash`);
    const body = bodyField(row.body);
    if (body === undefined) return bad(run, rows.length, bytes, row.seq, 'modified', `record ${row.seq} is not JSON`);
    if (body.seq !== row.seq || body.runId !== run.runId || body.type !== row.type) {
      return bad(
        run,
        rows.length,
        bytes,
        row.seq,
        'reordered',
        `record ${row.seq} holds record ${String(body.seq)} of run ${String(body.runId)}`,
      );
    }
    if (row.prevHash !== prevHash)
      return bad(run, rows.length, bytes, row.seq, 'reordered', `record ${row.seq} does not follow record ${row.seq - 1}`);
    if (row.type === 'run.sealed') sealedAt = row.seq;
    prevHash = row.hash;
  }
  if (rows.length < run.recordCount)
    return bad(run, rows.length, bytes, rows.length, 'truncated', `${run.recordCount} records were appended, ${rows.length} are stored`);
  if (run.sealed && sealedAt === undefined)
    return bad(run, rows.length, bytes, rows.length, 'truncated', 'the run is sealed but its seal record is gone');
  if (!run.sealed && sealedAt !== undefined)
    return bad(run, rows.length, bytes, sealedAt, 'modified', `the run row says unsealed but record ${sealedAt} seals it`);
  if (rows.length > run.recordCount)
    return bad(run, rows.length, bytes, run.recordCount, 'appended', `${rows.length} records are stored, ${run.recordCount} were appended`);
  if (rows.length > 0 && prevHash !== run.lastHash)
    return bad(run, rows.length, bytes, rows.length - 1, 'modified', `record ${rows.length - 1} is not the last record appended`);
  return { runId: run.runId, ok: true, records: rows.length, bytes };
}

/** Why a seal's signature fails a run whose chain verifies, or undefined when it does not. */
function signatureProblem(check: SignatureCheck, { keys, require = false, allowOtherKeys = false }: SignatureOptions): string | undefined {
  switch (check.status) {
    case 'invalid':
      return check.keyId === undefined
        ? 'the seal signature is malformed'
        : `the seal signature does not verify with key ${check.keyId}: the run was changed after it was signed`;
    case 'unknown_key':
      if (allowOtherKeys && !require) return undefined;
      return `the seal is signed by key ${check.keyId}, which is not one of the ${keys.length} public key(s) given`;
    case 'unsigned':
      return require ? 'the seal is not signed (signatures are required)' : undefined;
    default:
      return undefined;
  }
}

/** A run's chain, and its seal's signature when `signatures` is given. */
export function verifySignedRun(run: RunRow, rows: readonly StoredRecord[], signatures?: SignatureOptions): RunVerification {
  const chain = verifyRun(run, rows);
  if (signatures === undefined) return chain;
  const signature = checkSeal(rows, signatures.keys);
  const problem = chain.ok ? signatureProblem(signature, signatures) : undefined;
  return { ...chain, ok: chain.ok && problem === undefined, signature, ...(problem === undefined ? {} : { signatureProblem: problem }) };
}

/** What {@link verifyLedger} found: totals over every run, and the first problems. */
export interface LedgerVerification {
  /** Every run read verifies. */
  readonly ok: boolean;
  readonly runs: number;
  /** Runs that do not verify (their chain, or their seal's signature). */
  readonly broken: number;
  readonly records: number;
  readonly bytes: number;
  /** Runs per seal signature status, when signatures were checked. */
  readonly signatures: Readonly<Record<SignatureStatus, number>>;
  /** The key ids of seals signed by a key not given (`unknown_key`), in the order first met. */
  readonly otherKeys: readonly string[];
  /** The first `maxProblems` runs that do not verify, in start order. */
  readonly problems: readonly RunVerification[];
}

/**
 * Verifies every run of a ledger (or one), in start order: each chain, with `signatures` each seal's
 * signature, and each linked run's link (it names a sealed blocked or failed run of the ledger). The runs are read as a stream (`streamHistory`: pages under one snapshot where the ledger
 * offers it, each run's row and records agreeing), so a live ledger verifies while runs append, and only
 * totals and the first `maxProblems` broken runs are kept: memory does not grow with the number of runs.
 * `onRun` sees each run's result as it comes (to print it), in start order.
 */
export async function verifyLedger(
  ledger: Ledger,
  {
    runId,
    signatures,
    maxProblems = 100,
    pageSize,
    onRun,
  }: {
    runId?: string;
    signatures?: SignatureOptions;
    /** @default 100 */
    maxProblems?: number;
    /** Runs read per round trip (see `StreamOptions`). */
    pageSize?: number;
    onRun?: (result: RunVerification) => void | Promise<void>;
  } = {},
): Promise<LedgerVerification> {
  const totals = { runs: 0, broken: 0, records: 0, bytes: 0 };
  const statuses: Record<SignatureStatus, number> = { valid: 0, invalid: 0, unknown_key: 0, unsigned: 0, unsealed: 0 };
  const otherKeys = new Set<string>();
  const problems: RunVerification[] = [];
  const stream = streamHistory(ledger, {
    summaries: true,
    ...(runId === undefined ? {} : { filter: { runId } }),
    ...(pageSize === undefined ? {} : { pageSize }),
  });
  for await (const { run, records, summary } of stream) {
    const signed = verifySignedRun(run, records, signatures);
    // Every record must read back as its type; a linked run's link must name a sealed run that needed
    // resolving: one look-up per linked run; what the store derived must be what the records say.
    const unreadable = signed.ok ? recordProblem(records) : undefined;
    const link = signed.ok && unreadable === undefined ? await linkProblem(ledger, run, records) : undefined;
    const derived = signed.ok && unreadable === undefined && link === undefined ? summaryProblem(run, records, summary) : undefined;
    const result: RunVerification =
      unreadable !== undefined
        ? { ...signed, ok: false, recordProblem: unreadable }
        : link !== undefined
          ? { ...signed, ok: false, linkProblem: link }
          : derived !== undefined
            ? { ...signed, ok: false, summaryProblem: derived }
            : signed;
    totals.runs += 1;
    totals.records += result.records;
    totals.bytes += result.bytes;
    if (result.signature !== undefined) statuses[result.signature.status] += 1;
    if (result.signature?.status === 'unknown_key' && result.signature.keyId !== undefined) otherKeys.add(result.signature.keyId);
    if (!result.ok) {
      totals.broken += 1;
      if (problems.length < maxProblems) problems.push(result);
    }
    await onRun?.(result);
  }
  return { ok: totals.broken === 0, ...totals, signatures: statuses, otherKeys: [...otherKeys], problems };
}
