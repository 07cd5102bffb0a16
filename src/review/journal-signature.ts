import { canonicalJson } from '../core/canonical-json.js';
import { checkSignature, signMessage, type PublicKeyEntry, type Signer } from '../core/signature.js';

/**
 * Signed journal entries (docs/review.md, 'Signed entries'): a writer holding the ledger's signing key
 * signs each entry it appends. The signature covers the entry's body and the hash of the entry before it
 * (which chains every earlier entry), so an entry rewritten with every later hash recomputed fails its own
 * signature and every later one's. It is stored beside the entry (`signature`, JSON), outside the hash.
 */

/** What a signature check reads of a stored journal entry (`JournalRow`). */
export interface SignedRow {
  readonly seq: number;
  readonly body: string;
  readonly prevHash: string;
  /** The canonical JSON of an `Ed25519Signature`; absent when the entry was appended unsigned. */
  readonly signature?: string | undefined;
}

/** Tells signed messages of this kind from anything else the same key signs (seals). */
const DOMAIN = 'redline.review-journal/1';

/** What a journal entry's signature covers: the hash of the entry before it and its body. */
export function journalMessage(prevHash: string, body: string): Uint8Array {
  return Buffer.from(`${DOMAIN}\n${prevHash}\n${body}`, 'utf8');
}

/** The rows, each with its signature (`signature`, the canonical JSON of an `Ed25519Signature`). */
export function signJournalRows<R extends SignedRow>(rows: readonly R[], signer: Signer): R[] {
  return rows.map((row) => ({ ...row, signature: canonicalJson(signMessage(signer, journalMessage(row.prevHash, row.body))) }));
}

/** What an entry's signature says; `unsigned` when the entry was appended without one. */
export type JournalSignatureStatus = 'valid' | 'invalid' | 'unknown_key' | 'unsigned';

/** How journal signatures are checked: as a run's seal signature is (`SignatureOptions` of the ledger). */
export interface JournalSignatureOptions {
  /** The public keys an entry may be signed with (any whose key id matches). */
  readonly keys: readonly PublicKeyEntry[];
  /** An entry appended without a signature fails (else it is counted `unsigned`, and proves nothing). */
  readonly require?: boolean;
  /** An entry signed by a key not in `keys` is counted, not failed (keys found locally). Ignored with `require`. */
  readonly allowOtherKeys?: boolean;
}

/** Counts per status, the key ids of entries signed by keys not given, and the first entry that fails. */
export interface JournalSignatures {
  readonly counts: Readonly<Record<JournalSignatureStatus, number>>;
  readonly otherKeys: readonly string[];
  /** The first entry whose signature fails it, and why. */
  readonly problem?: { readonly seq: number; readonly detail: string };
}

/** Checks journal entries' signatures one by one, as they stream past, keeping counts and the first failure. */
export class JournalSignatureCheck {
  readonly #options: JournalSignatureOptions;
  readonly #counts: Record<JournalSignatureStatus, number> = { valid: 0, invalid: 0, unknown_key: 0, unsigned: 0 };
  readonly #otherKeys = new Set<string>();
  #problem: { seq: number; detail: string } | undefined;

  constructor(options: JournalSignatureOptions) {
    this.#options = options;
  }

  /** A row whose chain link holds. */
  next(row: SignedRow): void {
    const { status, keyId } = checkJournalRow(row, this.#options.keys);
    this.#counts[status] += 1;
    if (status === 'unknown_key' && keyId !== undefined) this.#otherKeys.add(keyId);
    const detail = this.#why(row.seq, status, keyId);
    if (detail !== undefined) this.#problem ??= { seq: row.seq, detail };
  }

  result(): JournalSignatures {
    return {
      counts: { ...this.#counts },
      otherKeys: [...this.#otherKeys],
      ...(this.#problem === undefined ? {} : { problem: this.#problem }),
    };
  }

  #why(seq: number, status: JournalSignatureStatus, keyId: string | undefined): string | undefined {
    const { keys, require = false, allowOtherKeys = false } = this.#options;
    switch (status) {
      case 'invalid':
        return keyId === undefined
          ? `journal entry ${seq}'s signature is malformed`
          : `journal entry ${seq}'s signature does not verify with key ${keyId}: the entry, or one before it, was changed after it was signed`;
      case 'unknown_key':
        return allowOtherKeys && !require
          ? undefined
          : `journal entry ${seq} is signed by key ${keyId}, which is not one of the ${keys.length} public key(s) given`;
      case 'unsigned':
        return require ? `journal entry ${seq} is not signed (signatures are required)` : undefined;
      default:
        return undefined;
    }
  }
}

/** The signature of one stored entry against `keys`. */
export function checkJournalRow(
  row: SignedRow,
  keys: readonly PublicKeyEntry[],
): { status: JournalSignatureStatus; keyId?: string; source?: string } {
  if (row.signature === undefined) return { status: 'unsigned' };
  let signature: unknown;
  try {
    signature = JSON.parse(row.signature);
  } catch {
    return { status: 'invalid' };
  }
  return checkSignature(signature, journalMessage(row.prevHash, row.body), keys);
}
