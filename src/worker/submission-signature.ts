import { createHash, verify } from 'node:crypto';
import { canonicalJson } from '../core/canonical-json.js';
import type { PublicKeyEntry, Signer } from '../ledger/seal-signature.js';
import { manifestHash } from '../workspace/manifest.js';
import { SubmissionRefusedError } from '../errors/submission-refused-error.js';
import type { Submission, SubmissionSignature } from './submission.js';

/** Tells signed submissions from anything else the same key might sign (seals: `redline.seal/1`). */
const DOMAIN = 'redline.submission/1';

/**
 * Whom a worker believes: the submitters' public keys (`--trust-key`), or whoever can write the database
 * (`--trust-database`: unsigned rows run as they are).
 */
export type SubmissionTrust = { readonly keys: readonly PublicKeyEntry[] } | 'database';

/** The mission file a worker writes next to the materialized tree and runs: the stored mission, its workspace the tree. */
export function missionToRun(submission: Pick<Submission, 'mission'>): Record<string, unknown> {
  return { ...submission.mission, ...('workspace' in submission.mission ? { workspace: 'workspace' } : {}) };
}

/**
 * The SHA-256 (hex) of everything a worker acts on, canonical: the id (also the run's), the mission as the
 * worker runs it, the proposer command, the manifest entry by entry (path, type, mode, size, content hash,
 * symlink target) and its hash recomputed from those entries, the workspace root's mode, and the time of
 * submission. A file's bytes are bound through their hash: the worker checks every blob against it.
 */
export function submissionDigest(submission: Submission): string {
  const manifest = [...submission.manifest].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const body = canonicalJson({
    id: submission.id,
    missionId: submission.missionId,
    mission: missionToRun(submission),
    proposer: submission.proposer ?? null,
    manifest,
    manifestHash: manifestHash(new Map(submission.manifest)),
    storedManifestHash: submission.manifestHash,
    rootMode: submission.rootMode,
    submittedAt: submission.submittedAt,
  });
  return createHash('sha256').update(body, 'utf8').digest('hex');
}

/** What the submitter's key signs: the domain, the id and {@link submissionDigest}. */
export function submissionMessage(submission: Submission): Uint8Array {
  return Buffer.from(`${DOMAIN}\n${submission.id}\n${submissionDigest(submission)}`, 'utf8');
}

/** The signature `redline submit` stores with the row. */
export function signSubmission(submission: Submission, signer: Signer): SubmissionSignature {
  return { keyId: signer.keyId, value: Buffer.from(signer.sign(submissionMessage(submission))).toString('base64') };
}

/** Whether `value` (base64) is `key`'s signature of the submission as loaded; a malformed one is not. */
function verifies(submission: Submission, key: PublicKeyEntry, value: string): boolean {
  try {
    return verify(null, submissionMessage(submission), key.key, Buffer.from(value, 'base64'));
  } catch {
    return false;
  }
}

/**
 * Refuses a submission a worker must not run: unsigned, signed by a key it does not trust, or changed
 * since it was signed (the digest is recomputed from the row as loaded, never read from it).
 * `'database'` trusts every row.
 * @throws {SubmissionRefusedError} naming the reason.
 */
export function verifySubmission(submission: Submission, trust: SubmissionTrust): void {
  if (trust === 'database') return;
  const { signature } = submission;
  if (signature === undefined)
    throw new SubmissionRefusedError(
      submission.id,
      `submission ${submission.id} is not signed; this worker runs only submissions signed by a key it trusts (--trust-key)`,
    );
  const key = trust.keys.find((entry) => entry.keyId === signature.keyId);
  if (key === undefined)
    throw new SubmissionRefusedError(
      submission.id,
      `submission ${submission.id} is signed by key ${signature.keyId}, which this worker does not trust (trusted: ${trust.keys.map((entry) => entry.keyId).join(', ') || 'none'})`,
    );
  if (!verifies(submission, key, signature.value))
    throw new SubmissionRefusedError(
      submission.id,
      `submission ${submission.id} does not match its signature by key ${signature.keyId}: its mission, proposer or workspace changed after it was signed`,
    );
}
