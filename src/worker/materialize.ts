import { createHash, randomBytes } from 'node:crypto';
import { mkdirSync, renameSync } from 'node:fs';
import path from 'node:path';
import { contentHash, manifestHash, type ManifestEntry } from '../workspace/manifest.js';
import { mkdirInside, removeTree, symlinkInside, writeChunksInside, writeInside } from '../workspace/safe-fs.js';
import { chmodFolder } from '../workspace/settled-folder.js';
import { checkManifest } from './check-manifest.js';
import { checkBounds, DEFAULT_BOUNDS, type WorkspaceBounds } from './workspace-bounds.js';

/** Where a blob's bytes come from: the store, by hash. */
export interface BlobSource {
  /** Small blobs (at most {@link SMALL_BLOB} bytes each), whole, read together; a hash the source lacks is absent. */
  many(hashes: readonly string[]): Promise<ReadonlyMap<string, Uint8Array>>;
  /** One blob's bytes in parts, read as they are asked for; nothing for a blob the source lacks. */
  parts(hash: string): AsyncIterable<Uint8Array>;
}

/** A file at most this large is read whole (with others, {@link PAGE_BYTES} at a time); a larger one part by part. */
export const SMALL_BLOB = 1024 * 1024;
/** Bytes of small blobs asked for at once. */
const PAGE_BYTES = 8 * 1024 * 1024;

/** A blob source over a lookup of whole blobs (in memory: tests, a local pack). */
export function wholeBlobs(lookup: (hashes: readonly string[]) => Promise<ReadonlyMap<string, Uint8Array>>): BlobSource {
  return {
    many: lookup,
    async *parts(hash) {
      const bytes = (await lookup([hash])).get(hash);
      if (bytes !== undefined) yield bytes;
    },
  };
}

type FileEntry = Extract<ManifestEntry, { type: 'file' }>;

const wrongBlob = (file: string, hash: string, got: string): TypeError =>
  new TypeError(`Expected the blob ${hash} of ${JSON.stringify(file)} in the store, got ${got}`);

/** A large blob's parts, hashed and counted as they pass: more bytes than the entry says, or others, are refused. */
async function* checked(file: string, entry: FileEntry, parts: AsyncIterable<Uint8Array>): AsyncGenerator<Uint8Array> {
  const digest = createHash('sha256');
  let size = 0;
  for await (const part of parts) {
    size += part.length;
    if (size > entry.size) throw wrongBlob(file, entry.hash, `more than its ${entry.size} bytes`);
    digest.update(part);
    yield part;
  }
  if (size === 0 && entry.size > 0) throw wrongBlob(file, entry.hash, 'none');
  if (size !== entry.size || digest.digest('hex') !== entry.hash) throw wrongBlob(file, entry.hash, 'other bytes');
}

/** Refuses a manifest no tree is written for: see {@link checkManifest} and {@link checkBounds}. */
export function checkTree(manifest: readonly (readonly [string, ManifestEntry])[], expectedHash: string, bounds: WorkspaceBounds): void {
  if (manifestHash(new Map(manifest)) !== expectedHash)
    throw new TypeError(`Expected a manifest with the hash ${expectedHash}, got one with ${manifestHash(new Map(manifest))}`);
  checkManifest(manifest);
  checkBounds(manifest, bounds);
}

const byPath = ([a]: readonly [string, unknown], [b]: readonly [string, unknown]): number => (a < b ? -1 : a > b ? 1 : 0);

/**
 * Writes `entries` (a checked manifest's, or part of one) into the existing directory `root`, where none
 * of them is yet: directories writable (0700) until {@link settleDirs}, files from blobs checked against
 * their hash (small ones a page at a time, large ones part by part, so memory stays bounded) with their
 * permission bits (never set-id), symlinks last, so nothing is written through one.
 */
export async function writeEntries(root: string, entries: readonly (readonly [string, ManifestEntry])[], blobs: BlobSource): Promise<void> {
  const sorted = [...entries].sort(byPath);
  // Parents sort before what they hold.
  for (const [file, entry] of sorted) if (entry.type === 'dir') mkdirInside(root, file, 0o700);
  const files = sorted.filter((item): item is [string, FileEntry] => item[1].type === 'file');
  const small = files.filter(([, entry]) => entry.size <= SMALL_BLOB);
  for (let start = 0; start < small.length;) {
    let bytes = 0;
    let end = start;
    while (end < small.length && (end === start || bytes + (small[end]?.[1].size ?? 0) <= PAGE_BYTES)) {
      bytes += small[end]?.[1].size ?? 0;
      end += 1;
    }
    const page = small.slice(start, end);
    const found = await blobs.many([...new Set(page.map(([, entry]) => entry.hash))]);
    for (const [file, entry] of page) {
      const content = found.get(entry.hash);
      if (content === undefined || contentHash(content) !== entry.hash)
        throw wrongBlob(file, entry.hash, content === undefined ? 'none' : 'other bytes');
      writeInside(root, file, content, { mode: entry.mode & 0o777, onObstacle: 'refuse' });
    }
    start = end;
  }
  for (const [file, entry] of files)
    if (entry.size > SMALL_BLOB)
      await writeChunksInside(root, file, checked(file, entry, blobs.parts(entry.hash)), {
        mode: entry.mode & 0o777,
        onObstacle: 'refuse',
      });
  for (const [file, entry] of sorted) if (entry.type === 'symlink') symlinkInside(root, file, entry.target);
}

/** Gives every directory of the manifest its mode, deepest first (so one without write permission is filled before it gets it), then the root. */
export function settleDirs(root: string, manifest: readonly (readonly [string, ManifestEntry])[], rootMode: number): void {
  // Through each folder itself: one swapped for a symlink meanwhile fails the tree, naming it, and nothing outside is changed.
  for (const [file, entry] of [...manifest].sort(byPath).reverse())
    if (entry.type === 'dir') chmodFolder(path.join(root, file), entry.mode & 0o777);
  chmodFolder(root, rootMode & 0o777);
}

/**
 * Writes the tree a manifest describes into `root` (which must not exist), from blobs checked against
 * their hash. The manifest is untrusted: a path that is not a plain relative path below the root (`..`,
 * absolute, empty parts) or one {@link checkManifest} refuses is an `EscapeError`, a tree larger than
 * `bounds` a `TypeError`, and nothing is written (see {@link writeEntries}).
 */
export async function writeTree(
  root: string,
  manifest: readonly (readonly [string, ManifestEntry])[],
  expectedHash: string,
  rootMode: number,
  blobs: BlobSource,
  bounds: WorkspaceBounds,
): Promise<void> {
  checkTree(manifest, expectedHash, bounds);
  mkdirSync(root, { mode: 0o700 });
  await writeEntries(root, manifest, blobs);
  settleDirs(root, manifest, rootMode);
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
  bounds = DEFAULT_BOUNDS,
}: {
  target: string;
  manifest: readonly (readonly [string, ManifestEntry])[];
  expectedHash: string;
  rootMode: number;
  blobs: BlobSource;
  bounds?: WorkspaceBounds;
}): Promise<void> {
  checkTree(manifest, expectedHash, bounds);
  const partial = `${target}.partial-${randomBytes(6).toString('hex')}`;
  try {
    await writeTree(partial, manifest, expectedHash, rootMode, blobs, bounds);
    renameSync(partial, target);
  } catch (error) {
    await removeTree(partial);
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== 'ENOTEMPTY' && code !== 'EEXIST') throw error;
  }
}
