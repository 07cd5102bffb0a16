import { canonicalJson } from '../core/canonical-json.js';
import { checkSignature, signMessage, type Ed25519Signature, type Signer } from '../core/signature.js';
import type { PublicKeyEntry } from '../core/signature.js';
import type { LedgerRecord, StoredRecord } from './ledger.js';

export type { PublicKeyEntry, Signer } from '../core/signature.js';

/** What a seal record carries in `data.signature`. */
export type SealSignature = Ed25519Signature;

/** Tells signed messages of this kind from anything else the same key might sign. */
const DOMAIN = 'redline.seal/1';

/**
 * What a seal's signature covers: the run id, the hash of the run's last record before the seal (which
 * chains every earlier record) and the seal record itself, canonical, without its `signature` field. The
 * seal's own hash then covers the signature: no record of the run, nor the seal, can change without
 * breaking one or the other.
 */
export function sealMessage(prevHash: string, seal: LedgerRecord): Uint8Array {
  const { signature: _signature, ...data } = seal.data;
  const body = canonicalJson({ runId: seal.runId, seq: seal.seq, type: seal.type, at: seal.at, data });
  return Buffer.from(`${DOMAIN}\n${seal.runId}\n${prevHash}\n${body}`, 'utf8');
}

/** The seal record with its signature over `prevHash` (the hash of the run's record before it). */
export function signSeal({ signer, prevHash, seal }: { signer: Signer; prevHash: string; seal: LedgerRecord }): LedgerRecord {
  return { ...seal, data: { ...seal.data, signature: sealSignature({ signer, prevHash, seal }) } };
}

/** The signature a seal record carries (`data.signature`), over `prevHash` (the hash of the run's record before it). */
export function sealSignature({ signer, prevHash, seal }: { signer: Signer; prevHash: string; seal: LedgerRecord }): SealSignature {
  return signMessage(signer, sealMessage(prevHash, seal));
}

/**
 * What the seal's signature says about a run:
 * - `valid`: a given key with its key id verifies it;
 * - `invalid`: a given key with its key id does not (something changed after signing), or it is malformed;
 * - `unknown_key`: signed by a key none of the given keys is;
 * - `unsigned`: sealed without a signature;
 * - `unsealed`: not sealed (yet).
 */
export type SignatureStatus = 'valid' | 'invalid' | 'unknown_key' | 'unsigned' | 'unsealed';

export interface SignatureCheck {
  readonly status: SignatureStatus;
  readonly keyId?: string;
  /** For `valid`: where the key that verified it came from. */
  readonly source?: string;
}

/**
 * Checks the signature of a run's seal (its last stored record) against `keys`. The chain is checked
 * apart (`verifyRun`): this trusts the rows only as far as reading the seal and its `prevHash`.
 */
export function checkSeal(rows: readonly StoredRecord[], keys: readonly PublicKeyEntry[]): SignatureCheck {
  const last = rows.at(-1);
  if (last?.type !== 'run.sealed') return { status: 'unsealed' };
  let seal: LedgerRecord;
  try {
    seal = JSON.parse(last.body) as LedgerRecord;
  } catch {
    return { status: 'invalid' };
  }
  const signature = seal.data?.signature;
  if (signature === undefined) return { status: 'unsigned' };
  return checkSignature(signature, sealMessage(last.prevHash, seal), keys);
}
