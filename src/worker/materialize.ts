import { randomBytes } from 'node:crypto';
import { chmodSync, mkdirSync, renameSync } from 'node:fs';
import path from 'node:path';
import { contentHash, manifestHash, type ManifestEntry } from '../workspace/manifest.js';
import { mkdirInside, removeTree, symlinkInside, writeInside } from '../workspace/safe-fs.js';
import { checkManifest } from './check-manifest.js';

/** Where a blob's bytes come from: the store, by hash. */
export type BlobSource = (hashes: readonly string[]) => Promise<ReadonlyMap<string, Uint8Array>>;

/**
 * Writes the tree a manifest describes into `root` (which must not exist), from blobs checked against
 * their hash. The manifest is untrusted: a path that is not a plain relative path below the root (`..`,
 * absolute, empty parts) or one {@link checkManifest} refuses is an `EscapeError` and nothing is left behind. Files get their
 * permission bits (never set-id), directories theirs once filled; symlinks are made last, so nothing is
 * written through one.
 */
async function writeTree(root: string, manifest: readonly (readonly [string, ManifestEntry])[], blobs: BlobSource): Promise<void> {
  checkManifest(manifest);
  const sorted = [...manifest].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const wanted = [...new Set(sorted.flatMap(([, entry]) => (entry.type === 'file' ? [entry.hash] : [])))];
  const found = await blobs(wanted);
  mkdirSync(root, { mode: 0o700 });
  for (const [file, entry] of sorted) {
    if (entry.type === 'dir') mkdirInside(root, file, 0o700);
    if (entry.type !== 'file') continue;
    const bytes = found.get(entry.hash);
    if (bytes === undefined || contentHash(bytes) !== entry.hash)
      throw new TypeError(
        `Expected the blob ${entry.hash} of ${JSON.stringify(file)} in the store, got ${bytes === undefined ? 'none' : 'other bytes'}`,
      );
    writeInside(root, file, bytes, { mode: entry.mode & 0o777, onObstacle: 'refuse' });
  }
  for (const [file, entry] of sorted) if (entry.type === 'symlink') symlinkInside(root, file, entry.target);
  // Deepest first, so a directory without write permission is filled before it gets its mode.
  for (const [file, entry] of sorted.reverse()) if (entry.type === 'dir') chmodSync(path.join(root, file), entry.mode & 0o777);
}

/**
 * Materializes a submitted workspace at `target` once per machine: written whole into a temporary sibling,
 * checked against the manifest's hash, then renamed into place. A tree another run on this machine
 * materialized first is used as it is.
 * @throws {EscapeError} for a hostile manifest (see `writeTree`); nothing is left at `target`.
 */
export async function materialize({
  target,
  manifest,
  expectedHash,
  rootMode,
  blobs,
}: {
  target: string;
  manifest: readonly (readonly [string, ManifestEntry])[];
  expectedHash: string;
  rootMode: number;
  blobs: BlobSource;
}): Promise<void> {
  if (manifestHash(new Map(manifest)) !== expectedHash)
    throw new TypeError(`Expected a manifest with the hash ${expectedHash}, got one with ${manifestHash(new Map(manifest))}`);
  const partial = `${target}.partial-${randomBytes(6).toString('hex')}`;
  try {
    await writeTree(partial, manifest, blobs);
    chmodSync(partial, rootMode & 0o777);
    renameSync(partial, target);
  } catch (error) {
    await removeTree(partial);
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== 'ENOTEMPTY' && code !== 'EEXIST') throw error;
  }
}
