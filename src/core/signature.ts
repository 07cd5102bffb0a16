import { verify, type KeyObject } from 'node:crypto';

/**
 * Ed25519 signatures as redline stores them: a run's seal carries one (docs/ledger.md, 'Signed seals'),
 * and so does each review journal entry a writer holding the key appends (docs/review.md, 'The journal').
 */

/** A stored signature: which key made it and the signature itself. */
export interface Ed25519Signature {
  readonly algorithm: 'ed25519';
  /** The signing key's id: the first 16 hex digits of the SHA-256 of its SPKI DER encoding. */
  readonly keyId: string;
  /** The Ed25519 signature of the signed message, base64. */
  readonly value: string;
}

/**
 * The port a writer signs through: it holds a private key and says which (`keyId`). What is written
 * without one (library use without a signer, older ledgers) carries no signature.
 */
export interface Signer {
  readonly keyId: string;
  /** The Ed25519 signature of `message`. */
  sign(message: Uint8Array): Uint8Array;
}

/** A public key that may have signed, with where it came from (for messages). */
export interface PublicKeyEntry {
  readonly keyId: string;
  readonly key: KeyObject;
  readonly source: string;
}

/** What a signature says: verified by a given key, not verified (or malformed), or made by a key not given. */
export interface SignatureResult {
  readonly status: 'valid' | 'invalid' | 'unknown_key';
  readonly keyId?: string;
  /** For `valid`: where the key that verified it came from. */
  readonly source?: string;
}

/** Whether a value is a stored signature. */
export function isSignature(value: unknown): value is Ed25519Signature {
  const signature = value as Partial<Ed25519Signature> | null;
  return (
    typeof signature === 'object' &&
    signature !== null &&
    signature.algorithm === 'ed25519' &&
    typeof signature.keyId === 'string' &&
    typeof signature.value === 'string'
  );
}

/** `message` signed with `signer`. */
export function signMessage(signer: Signer, message: Uint8Array): Ed25519Signature {
  return { algorithm: 'ed25519', keyId: signer.keyId, value: Buffer.from(signer.sign(message)).toString('base64') };
}

/** Checks `signature` over `message` against the given keys whose key id it names. */
export function checkSignature(signature: unknown, message: Uint8Array, keys: readonly PublicKeyEntry[]): SignatureResult {
  if (!isSignature(signature)) return { status: 'invalid' };
  const candidates = keys.filter((entry) => entry.keyId === signature.keyId);
  if (candidates.length === 0) return { status: 'unknown_key', keyId: signature.keyId };
  const value = Buffer.from(signature.value, 'base64');
  const verifier = candidates.find((entry) => verify(null, message, entry.key, value));
  return verifier === undefined
    ? { status: 'invalid', keyId: signature.keyId }
    : { status: 'valid', keyId: signature.keyId, source: verifier.source };
}
