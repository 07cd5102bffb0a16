import { createHash, randomUUID } from 'node:crypto';
import { mkdtemp, realpath } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { loadMission } from '../mission/load.js';
import { setsMaxAttempts } from '../mission/mission.js';
import { ignoreRule } from '../workspace/ignore.js';
import { manifestHash, type ManifestEntry } from '../workspace/manifest.js';
import { removeTree } from '../workspace/safe-fs.js';
import { takeSnapshot } from '../workspace/snapshot.js';
import type { Signer } from '../ledger/seal-signature.js';
import type { BlobPack } from '../workspace/blob-pack.js';
import type { JobQueue } from './job-queue.js';
import { checkManifest } from './check-manifest.js';
import type { Submission } from './submission.js';
import { signSubmission } from './submission-signature.js';
import { checkBounds, DEFAULT_BOUNDS, type WorkspaceBounds } from './workspace-bounds.js';
import { BLOB_PART_BYTES, type WorkerStore } from './worker-store.js';

/** Bytes of small blobs sent per insert. */
const UPLOAD_BYTES = 8 * 1024 * 1024;

/** A large blob's parts read from the pack one at a time, hashed on the way: bytes that changed are refused at the end. */
function* checkedParts(pack: BlobPack, hash: string): Generator<Buffer> {
  const digest = createHash('sha256');
  for (const part of pack.chunks(hash, BLOB_PART_BYTES)) {
    digest.update(part);
    yield part;
  }
  if (digest.digest('hex') !== hash)
    throw new Error(`the snapshot's pack ${pack.file} is damaged: blob ${hash.slice(0, 12)}… does not match its content`);
}

/** What `submit` stored for one mission file. */
export interface Submitted {
  readonly id: string;
  readonly missionId: string;
  readonly files: number;
  /** Blobs this submission added; the others were in the store already (another submission's). */
  readonly newBlobs: number;
  readonly reusedBlobs: number;
  readonly newBytes: number;
  /** The key that signed it. */
  readonly keyId: string;
}

/**
 * Submits one mission file to the fleet: its workspace is read once into a snapshot, the file contents
 * the store lacks are stored as content-addressed blobs (shared by every submission), the mission and
 * the manifest are stored as a submission, and its id is queued. A manifest the worker would refuse (a
 * symlink leading outside the workspace, which means nothing on another machine; see `checkManifest`) is
 * refused here first, and so is a workspace larger than `bounds` (naming the file, or the total). The
 * submission is signed with `signer` (see `submissionDigest`): workers that trust its key run it as it
 * was signed, and refuse it changed. Blobs go part by part, so memory stays bounded whatever the files' size.
 */
export async function submitMission({
  file,
  store,
  queue,
  proposer,
  signer,
  bounds = DEFAULT_BOUNDS,
  now = Date.now,
}: {
  file: string;
  store: WorkerStore;
  queue: JobQueue;
  proposer?: string;
  signer: Signer;
  bounds?: WorkspaceBounds;
  now?: () => number;
}): Promise<Submitted> {
  const mission = await loadMission(file);
  const { baseDir: _baseDir, workspaceDir, ...loaded } = mission;
  // A mission that named no attempt limit takes the review tuner's on the worker too: the default is not written down.
  const { maxAttempts: _defaulted, ...budgets } = loaded.budgets;
  // As the database gives it back (JSON), so the signature covers what the worker reads.
  const fields = JSON.parse(JSON.stringify(setsMaxAttempts(mission) ? loaded : { ...loaded, budgets })) as Record<string, unknown>;
  const id = randomUUID();
  let manifest: [string, ManifestEntry][] = [];
  let hash = manifestHash(new Map());
  let rootMode = 0o755;
  const counts = { newBlobs: 0, reusedBlobs: 0, newBytes: 0 };
  if (workspaceDir !== undefined) {
    const runDir = await mkdtemp(path.join(os.tmpdir(), 'redline-submit-'));
    try {
      const { snapshot } = await takeSnapshot({ workspace: await realpath(workspaceDir), ignored: ignoreRule(mission.ignore), runDir });
      try {
        manifest = [...snapshot.manifest];
        checkManifest(manifest);
        checkBounds(manifest, bounds);
        hash = snapshot.hash;
        rootMode = snapshot.rootMode;
        const sizes = new Map(manifest.flatMap(([, entry]) => (entry.type === 'file' ? [[entry.hash, entry.size] as const] : [])));
        const hashes = [...sizes.keys()];
        const held = await store.heldBlobs(hashes);
        let batch: { hash: string; bytes: Buffer }[] = [];
        let bytes = 0;
        for (const hash of hashes) {
          if (held.has(hash)) {
            counts.reusedBlobs += 1;
            continue;
          }
          const size = sizes.get(hash) ?? 0;
          if (size > BLOB_PART_BYTES) {
            if (await store.putBlob(hash, size, checkedParts(snapshot.pack, hash))) {
              counts.newBlobs += 1;
              counts.newBytes += size;
            } else counts.reusedBlobs += 1;
            continue;
          }
          const blob = snapshot.blob(hash);
          batch.push({ hash, bytes: blob });
          bytes += blob.length;
          counts.newBlobs += 1;
          counts.newBytes += blob.length;
          if (bytes >= UPLOAD_BYTES) {
            await store.putBlobs(batch);
            batch = [];
            bytes = 0;
          }
        }
        await store.putBlobs(batch);
      } finally {
        snapshot.pack.close();
      }
    } finally {
      await removeTree(runDir);
    }
  }
  const submission: Submission = {
    id,
    missionId: mission.id,
    mission: fields,
    manifest,
    manifestHash: hash,
    rootMode,
    ...(proposer === undefined ? {} : { proposer }),
    submittedAt: now(),
  };
  await store.putSubmission({ ...submission, signature: signSubmission(submission, signer) });
  await queue.send(id);
  return { id, missionId: mission.id, files: manifest.filter(([, entry]) => entry.type === 'file').length, ...counts, keyId: signer.keyId };
}
