import type { ManifestEntry } from '../workspace/manifest.js';

/** How large a submitted workspace may be: all its files together, and any one of them. */
export interface WorkspaceBounds {
  /** Bytes of every file of the tree together (a file present twice counts twice: it is written twice). */
  readonly maxBytes: number;
  readonly maxFileBytes: number;
}

const MiB = 1024 * 1024;

/** 1 GiB in all, 256 MiB a file: `--max-workspace-bytes` and `--max-file-bytes` change them. */
export const DEFAULT_BOUNDS: WorkspaceBounds = { maxBytes: 1024 * MiB, maxFileBytes: 256 * MiB };

/** `n` bytes for people: 41943040 → "40 MiB (41943040 bytes)". */
export function byteText(n: number): string {
  const units = ['GiB', 'MiB', 'KiB'] as const;
  for (const [index, unit] of units.entries()) {
    const size = 1024 ** (3 - index);
    if (n >= size) return `${Number((n / size).toFixed(1))} ${unit} (${n} bytes)`;
  }
  return `${n} bytes`;
}

/**
 * Refuses a manifest larger than `bounds`, naming the file or the total. `submit` checks the tree before
 * it stores anything, the worker the manifest it loaded before it writes anything (and each blob's bytes
 * as they arrive: a blob longer than its entry says is refused).
 * @throws {TypeError} "Expected … at most …, got …".
 */
export function checkBounds(manifest: readonly (readonly [string, ManifestEntry])[], bounds: WorkspaceBounds): void {
  let total = 0;
  for (const [file, entry] of manifest) {
    if (entry.type !== 'file') continue;
    if (entry.size > bounds.maxFileBytes)
      throw new TypeError(
        `Expected every file of the workspace to hold at most ${byteText(bounds.maxFileBytes)} (--max-file-bytes), got ${JSON.stringify(file)} of ${byteText(entry.size)}`,
      );
    total += entry.size;
  }
  if (total > bounds.maxBytes)
    throw new TypeError(
      `Expected a workspace of at most ${byteText(bounds.maxBytes)} in all (--max-workspace-bytes), got ${byteText(total)} in ${manifest.filter(([, entry]) => entry.type === 'file').length} files`,
    );
}
