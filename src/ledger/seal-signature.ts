import { verify, type KeyObject } from 'node:crypto';
import { canonicalJson } from '../core/canonical-json.js';
import type { LedgerRecord, StoredRecord } from './ledger.js';

/** What a seal record carries in `data.signature`. */
export interface SealSignature {
  readonly algorithm: 'ed25519';
  /** The signing key's id: see `keyIdOf` in signing-key.ts. */
  readonly keyId: string;
  /** The Ed25519 signature of {@link sealMessage}, base64. */
  readonly value: string;
}

/**
 * The port the loop signs seals through: it holds a private key and says which (`keyId`). Runs sealed
 * without one (library use without a signer, older ledgers) carry no signature.
 */
export interface Signer {
  readonly keyId: string;
  /** The Ed25519 signature of `message`. */
  sign(message: Uint8Array): Uint8Array;
}

/** A public key that may have signed seals, with where it came from (for messages). */
export interface PublicKeyEntry {
  readonly keyId: string;
  readonly key: KeyObject;
  readonly source: string;
}

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
  return { algorithm: 'ed25519', keyId: signer.keyId, value: Buffer.from(signer.sign(sealMessage(prevHash, seal))).toString('base64') };
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

function isSignature(value: unknown): value is SealSignature {
  const signature = value as Partial<SealSignature> | null;
  return (
    typeof signature === 'object' &&
    signature !== null &&
    signature.algorithm === 'ed25519' &&
    typeof signature.keyId === 'string' &&
    typeof signature.value === 'string'
  );
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
  if (!isSignature(signature)) return { status: 'invalid' };
  const candidates = keys.filter((entry) => entry.keyId === signature.keyId);
  if (candidates.length === 0) return { status: 'unknown_key', keyId: signature.keyId };
  const message = sealMessage(last.prevHash, seal);
  const value = Buffer.from(signature.value, 'base64');
  const verifier = candidates.find((entry) => verify(null, message, entry.key, value));
  return verifier === undefined
    ? { status: 'invalid', keyId: signature.keyId }
    : { status: 'valid', keyId: signature.keyId, source: verifier.source };
}
