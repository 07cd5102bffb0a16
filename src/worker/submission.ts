import { z } from 'zod';
import type { ManifestEntry } from '../workspace/manifest.js';

/** A mission handed to the fleet: the mission as loaded (paths made relative) and its workspace's manifest. */
export interface Submission {
  /** Also the id of its run in the ledger. */
  readonly id: string;
  readonly missionId: string;
  /** The mission's fields, with `workspace: 'workspace'`: a worker writes it next to the materialized tree. */
  readonly mission: Readonly<Record<string, unknown>>;
  /** Path → entry of the workspace when it was submitted; file bytes are blobs by hash. */
  readonly manifest: readonly (readonly [string, ManifestEntry])[];
  readonly manifestHash: string;
  readonly rootMode: number;
  /** A proposer command given at submit time (`--proposer`), else the mission's own. */
  readonly proposer?: string;
  readonly submittedAt: number;
  /** The submitter's Ed25519 signature over `submissionMessage` (submission-signature.ts); absent on an unsigned row. */
  readonly signature?: SubmissionSignature;
}

/** Who signed a submission, and the signature (base64). */
export interface SubmissionSignature {
  /** The signing key's id (`keyIdOf`). */
  readonly keyId: string;
  readonly value: string;
}

const HASH = z.string().regex(/^[0-9a-f]{64}$/, 'a SHA-256 hex digest');
const MODE = z.number().int().min(0).max(0o7777);

const entry = z.discriminatedUnion('type', [
  z.object({ type: z.literal('file'), mode: MODE, size: z.number().int().min(0), hash: HASH }).strict(),
  z.object({ type: z.literal('symlink'), target: z.string().min(1).max(4096) }).strict(),
  z.object({ type: z.literal('dir'), mode: MODE }).strict(),
]);

const row = z.object({
  id: z.string().regex(/^[A-Za-z0-9_-][A-Za-z0-9._-]*$/),
  mission_id: z.string(),
  mission: z.record(z.string(), z.unknown()),
  manifest: z.array(z.tuple([z.string().min(1).max(4096), entry])),
  manifest_hash: HASH,
  root_mode: MODE,
  proposer: z.string().nullable(),
  submitted_at: z.union([z.number(), z.string()]),
  key_id: z.string().nullish(),
  signature: z.string().nullish(),
});

/**
 * A submission row read back from the database, parsed: whoever can write the table is not trusted to
 * have written a well-formed manifest. Paths are checked when the tree is materialized.
 * @throws {TypeError} "Expected a submission …" naming the first problem.
 */
export function parseSubmission(input: unknown): Submission {
  const parsed = row.safeParse(input);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new TypeError(`Expected a submission row, got one with ${issue?.path.join('.') || '(root)'}: ${issue?.message ?? 'a bad shape'}`);
  }
  const data = parsed.data;
  return {
    id: data.id,
    missionId: data.mission_id,
    mission: data.mission,
    manifest: data.manifest,
    manifestHash: data.manifest_hash,
    rootMode: data.root_mode,
    ...(data.proposer === null ? {} : { proposer: data.proposer }),
    submittedAt: Number(data.submitted_at),
    ...(data.key_id == null || data.signature == null ? {} : { signature: { keyId: data.key_id, value: data.signature } }),
  };
}
