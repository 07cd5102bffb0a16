import { hash } from 'node:crypto';

/** One entry of a workspace manifest: what a path held when the snapshot was taken. */
export type ManifestEntry =
  | { readonly type: 'file'; readonly mode: number; readonly size: number; readonly hash: string }
  | { readonly type: 'symlink'; readonly target: string }
  | { readonly type: 'dir'; readonly mode: number };

/** A content-addressed record of a tree: relative path (POSIX separators) → entry. The root is not listed. */
export type Manifest = ReadonlyMap<string, ManifestEntry>;

/** SHA-256 (hex) of a file's bytes: the address of its content. */
export function contentHash(content: Uint8Array | string): string {
  return hash('sha256', content, 'hex');
}

function line(file: string, entry: ManifestEntry): string {
  switch (entry.type) {
    case 'file':
      return `${file}\0f\0${entry.mode.toString(8)}\0${entry.hash}\n`;
    case 'symlink':
      return `${file}\0l\0${entry.target}\n`;
    case 'dir':
      return `${file}\0d\0${entry.mode.toString(8)}\n`;
  }
}

/** The manifest's own hash: equal for trees with the same paths, types, modes, contents and link targets. */
export function manifestHash(manifest: Manifest): string {
  const paths = [...manifest.keys()].sort();
  let text = '';
  for (const file of paths) text += line(file, manifest.get(file) as ManifestEntry);
  return contentHash(text);
}
