import { chainHash, GENESIS } from '../core/hash-chain.js';
import type { ChainProblem } from '../core/hash-chain.js';
import { canonicalJson } from '../core/canonical-json.js';
import type { PreJournalRows } from './pre-journal.js';
import { RecordParseError } from '../errors/record-parse-error.js';
import { parseJournalEntry, type JournalEntry, type JournalType } from './journal-entries.js';
import { JournalSignatureCheck, type JournalSignatureOptions, type JournalSignatures } from './journal-signature.js';

/**
 * The review queue's journal (docs/review.md, 'The journal'): every verdict, mode change, attempt-limit change, drop,
 * alert and settings change, hash-chained like a run's records (`hash = sha256(prevHash ‖ body)`) in
 * the ledger's storage. It is one chain per queue, never sealed; `redline ledger verify` checks it
 * with the runs. The queue's own tables answer queries; the journal is what proves them.
 */

export type { JournalEntry, JournalType } from './journal-entries.js';

/** One journal entry as stored: `body` is the canonical JSON of `{ chain: 'review', seq, type, at, data }`. */
export interface JournalRow {
  /** 0, 1, 2, … in append order. */
  readonly seq: number;
  readonly type: JournalType;
  readonly body: string;
  readonly prevHash: string;
  readonly hash: string;
  /**
   * The writer's signature over `prevHash` and `body` (canonical JSON, see `journal-signature.ts`),
   * outside the hash; absent when the entry was appended without the signing key.
   */
  readonly signature?: string | undefined;
}

/** The journal's newest state as the queue's state row keeps it, so a deleted tail shows. */
export interface JournalHead {
  readonly count: number;
  readonly lastHash: string;
}

export const EMPTY_JOURNAL: JournalHead = Object.freeze({ count: 0, lastHash: GENESIS });

/** The first place a queue table says something its journal does not. */
export interface TableDisagreement {
  readonly table: string;
  /** The journal entry the table disagrees with, when there is one. */
  readonly seq?: number;
  readonly detail: string;
}

export interface JournalVerification {
  readonly ok: boolean;
  readonly records: number;
  readonly bytes: number;
  readonly firstBad?: { readonly seq: number; readonly problem: ChainProblem; readonly detail: string };
  /** The chain holds, but a queue table says something the journal does not (SQL backends). */
  readonly disagreement?: TableDisagreement;
  /**
   * The entries' signatures, when they were checked: counts per status, other keys, and the first entry
   * whose signature fails it (then `ok` is false).
   */
  readonly signatures?: JournalSignatures;
  /** The chain holds, but an entry does not parse as its type: the first such, with the field. */
  readonly entryProblem?: string;
  /**
   * Rows per table recorded before the queue had a journal, accepted unjournaled (SQL backends, schema
   * version 5 on; see `pre-journal.ts`). The journal does not cover them.
   */
  readonly preJournal?: Partial<PreJournalRows>;
}

/** The body a journal entry is stored and hashed as. */
export function journalBody(seq: number, type: JournalType, at: number, data: object): string {
  return canonicalJson({ chain: 'review', seq, type, at, data });
}

/**
 * A body whose `seq` is filled in later (by SQL that assigns it under a lock): the canonical JSON before
 * and after the number. Keys sort as at, chain, data, seq, type, so `seq` sits between `data` and `type`.
 */
export function journalBodyAround(type: JournalType, at: number, data: object): { before: string; after: string } {
  const body = journalBody(0, type, at, data);
  const marker = ',"seq":0,"type":';
  const cut = body.lastIndexOf(marker);
  return { before: body.slice(0, cut + ',"seq":'.length), after: body.slice(cut + ',"seq":0'.length) };
}

/** Appends entries after `head`: the rows to store and the new head. */
export function chainJournal(
  head: JournalHead,
  entries: readonly { type: JournalType; at: number; data: object }[],
): { rows: JournalRow[]; head: JournalHead } {
  let { count, lastHash } = head;
  const rows: JournalRow[] = [];
  for (const { type, at, data } of entries) {
    const body = journalBody(count, type, at, data);
    const hash = chainHash(lastHash, body);
    rows.push({ seq: count, type, body, prevHash: lastHash, hash });
    count += 1;
    lastHash = hash;
  }
  return { rows, head: { count, lastHash } };
}

/**
 * Checks a journal row by row, as it streams past, holding only the last hash: each hash covers its
 * predecessor's hash and its own body, `seq` runs 0, 1, 2, … without gaps, and at the end the count and
 * last hash match the queue's state row.
 */
export class JournalChain {
  #prevHash = GENESIS;
  #records = 0;
  #bytes = 0;
  #entryProblem: string | undefined;
  readonly #signatures: JournalSignatureCheck | undefined;

  /** With `signatures`, each entry's signature is checked too (`end` reports them). */
  constructor(signatures?: JournalSignatureOptions) {
    this.#signatures = signatures === undefined ? undefined : new JournalSignatureCheck(signatures);
  }

  /** The next stored row; the first problem found, when there is one. */
  next(row: JournalRow): JournalVerification | undefined {
    const index = this.#records;
    this.#records += 1;
    this.#bytes += row.body.length;
    if (row.seq !== index) {
      return row.seq > index
        ? this.#bad(
            index,
            'missing',
            `journal entry ${index}${row.seq - index > 1 ? `–${row.seq - 1}` : ''} is missing (next stored is ${row.seq})`,
          )
        : this.#bad(row.seq, 'reordered', `journal entry ${row.seq} is stored out of order`);
    }
    if (chainHash(row.prevHash, row.body) !== row.hash)
      return this.#bad(row.seq, 'modified', `journal entry ${row.seq} does not match its hash`);
    let json: unknown;
    try {
      json = JSON.parse(row.body);
    } catch {
      return this.#bad(row.seq, 'modified', `journal entry ${row.seq} is not JSON`);
    }
    const body: { chain?: unknown; seq?: unknown; type?: unknown } = typeof json === 'object' && json !== null ? json : {};
    if (body.seq !== row.seq) return this.#bad(row.seq, 'reordered', `journal entry ${row.seq} holds entry ${String(body.seq)}`);
    if (body.chain !== 'review' || body.type !== row.type)
      return this.#bad(row.seq, 'modified', `journal entry ${row.seq} is stored as ${row.type} but holds ${String(body.type)}`);
    if (row.prevHash !== this.#prevHash)
      return this.#bad(row.seq, 'reordered', `journal entry ${row.seq} does not follow entry ${row.seq - 1}`);
    this.#prevHash = row.hash;
    this.#signatures?.next(row);
    return undefined;
  }

  /**
   * A row {@link next} passed, read as its entry; undefined when it does not parse, which {@link end}
   * reports (the first such) once the chain holds.
   */
  entry(row: JournalRow): JournalEntry | undefined {
    try {
      return parseJournalEntry(row);
    } catch (error) {
      if (!(error instanceof RecordParseError)) throw error;
      this.#entryProblem ??= `entry ${error.seq} (${error.type}): ${error.path === '' ? '' : `${error.path}: `}${error.problem}`;
      return undefined;
    }
  }

  /** After the last stored row: the rows against the head the state row keeps. */
  end(head: JournalHead): JournalVerification {
    const stored = this.#records;
    if (stored < head.count) return this.#bad(stored, 'truncated', `${head.count} journal entries were appended, ${stored} are stored`);
    if (stored > head.count) return this.#bad(head.count, 'appended', `${stored} journal entries are stored, ${head.count} were appended`);
    if (this.#prevHash !== head.lastHash)
      return this.#bad(Math.max(0, stored - 1), 'modified', `journal entry ${stored - 1} is not the last entry appended`);
    const signatures = this.#signatures?.result();
    const checked = signatures === undefined ? {} : { signatures };
    if (signatures?.problem !== undefined) return { ok: false, records: stored, bytes: this.#bytes, ...checked };
    if (this.#entryProblem !== undefined)
      return { ok: false, records: stored, bytes: this.#bytes, ...checked, entryProblem: this.#entryProblem };
    return { ok: true, records: stored, bytes: this.#bytes, ...checked };
  }

  #bad(seq: number, problem: ChainProblem, detail: string): JournalVerification {
    return { ok: false, records: this.#records, bytes: this.#bytes, firstBad: { seq, problem, detail } };
  }
}

/** Checks a whole journal held in memory, with `signatures` each entry's signature too; see {@link JournalChain}. */
export function verifyJournal(rows: readonly JournalRow[], head: JournalHead, signatures?: JournalSignatureOptions): JournalVerification {
  const chain = new JournalChain(signatures);
  for (const row of rows) {
    const bad = chain.next(row);
    // Reported over every stored row, as a reader of the whole journal counts them.
    if (bad !== undefined) return { ...bad, records: rows.length };
    chain.entry(row);
  }
  return chain.end(head);
}
