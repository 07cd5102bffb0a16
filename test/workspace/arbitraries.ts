import path from 'node:path';
import fc from 'fast-check';
import type { Entry, Tree } from './tree.js';

/** Where a generated symlink points: an entry of the tree, or out of it. */
export type LinkTo =
  { readonly kind: 'file' | 'dir'; readonly pick: number } | { readonly kind: 'up' | 'absolute-dir' | 'absolute-file' | 'dangling' };

/** A small tree, drawn before any directory exists; {@link buildTree} turns it into entries. */
export interface TreeSpec {
  readonly dirs: readonly string[];
  readonly files: readonly { readonly dir: number; readonly name: string; readonly content: Uint8Array; readonly mode: number }[];
  readonly links: readonly { readonly dir: number; readonly name: string; readonly to: LinkTo }[];
}

const content = fc.oneof(fc.uint8Array({ maxLength: 48 }), fc.constantFrom(new Uint8Array(), new TextEncoder().encode('same bytes\n')));

export const treeSpec: fc.Arbitrary<TreeSpec> = fc.record({
  dirs: fc.array(
    fc.array(fc.constantFrom('a', 'b', 'src', 'lib'), { minLength: 1, maxLength: 3 }).map((parts) => parts.join('/')),
    { maxLength: 5 },
  ),
  files: fc.array(
    fc.record({ dir: fc.nat(), name: fc.constantFrom('x.txt', 'y.js', 'run.sh', 'z.md'), content, mode: fc.constantFrom(0o644, 0o755) }),
    { minLength: 1, maxLength: 10 },
  ),
  links: fc.array(
    fc.record({
      dir: fc.nat(),
      name: fc.constantFrom('l1', 'l2', 'l3'),
      to: fc.oneof(
        fc.record({ kind: fc.constantFrom('file' as const, 'dir' as const), pick: fc.nat() }),
        fc.record({ kind: fc.constantFrom('up' as const, 'absolute-dir' as const, 'absolute-file' as const, 'dangling' as const) }),
      ),
    }),
    { maxLength: 4 },
  ),
});

/** What the directory outside the workspace holds (targets of the outward symlinks): a file and a directory. */
export const OUTSIDE: Tree = new Map<string, Entry>([
  ['file.txt', { type: 'file', mode: 0o644, content: Buffer.from('outside file\n') }],
  ['dir', { type: 'dir', mode: 0o755 }],
  ['dir/inner.txt', { type: 'file', mode: 0o644, content: Buffer.from('outside inner\n') }],
]);

/** The item at `index`, wrapping around (the list must not be empty). */
export function pick<T>(items: readonly T[], index: number): T {
  return items[index % items.length] as T;
}

/**
 * The entries of a spec, for a workspace whose sibling `outside` holds {@link OUTSIDE}. Always present: a
 * `node_modules` subtree with a `.bin` symlink, an empty directory, and ignored `.git` data (at the root and
 * nested in a package).
 */
export function buildTree(spec: TreeSpec, outside: string): Tree {
  const tree: Tree = new Map();
  const dir = (file: string): void => {
    const parts = file.split('/');
    for (let end = 1; end <= parts.length; end += 1) tree.set(parts.slice(0, end).join('/'), { type: 'dir', mode: 0o755 });
  };
  for (const file of ['node_modules/pkg', 'node_modules/.bin', 'node_modules/pkg/.git', 'empty', '.git/objects/ab', ...spec.dirs])
    dir(file);
  tree.set('node_modules/pkg/index.js', { type: 'file', mode: 0o644, content: Buffer.from('module.exports = 1;\n') });
  tree.set('node_modules/pkg/package.json', { type: 'file', mode: 0o644, content: Buffer.from('{"name":"pkg"}\n') });
  tree.set('node_modules/.bin/pkg', { type: 'symlink', target: '../pkg/index.js' });
  tree.set('node_modules/pkg/.git/HEAD', { type: 'file', mode: 0o644, content: Buffer.from('ref: refs/heads/main\n') });
  tree.set('.git/HEAD', { type: 'file', mode: 0o644, content: Buffer.from('ref: refs/heads/main\n') });
  tree.set('.git/objects/ab/cdef', { type: 'file', mode: 0o444, content: Buffer.from([0x78, 0x9c, 0xff, 0x00]) });
  const dirs = ['', ...spec.dirs];
  for (const file of spec.files) {
    const at = pick(dirs, file.dir);
    tree.set(at === '' ? file.name : `${at}/${file.name}`, { type: 'file', mode: file.mode, content: Buffer.from(file.content) });
  }
  const files = [...tree].filter(([file, entry]) => entry.type === 'file' && !file.includes('.git')).map(([file]) => file);
  const allDirs = [...tree].filter(([file, entry]) => entry.type === 'dir' && !file.includes('.git')).map(([file]) => file);
  for (const link of spec.links) {
    const at = pick(dirs, link.dir);
    const file = at === '' ? link.name : `${at}/${link.name}`;
    const depth = at === '' ? 0 : at.split('/').length;
    const relative = (to: string): string => path.posix.relative(at, to) || '.';
    const target =
      link.to.kind === 'file'
        ? relative(pick(files, link.to.pick))
        : link.to.kind === 'dir'
          ? relative(pick(['', ...allDirs], link.to.pick))
          : link.to.kind === 'up'
            ? `${'../'.repeat(depth + 1)}${path.basename(outside)}/dir`
            : link.to.kind === 'absolute-dir'
              ? path.join(outside, 'dir')
              : link.to.kind === 'absolute-file'
                ? path.join(outside, 'file.txt')
                : 'nowhere/at/all';
    tree.set(file, { type: 'symlink', target });
  }
  return tree;
}

/** Paths of `tree` of one type, ignored ones left out. */
export function pathsOf(tree: Tree, type: Entry['type'], ignored: (file: string) => boolean): string[] {
  return [...tree].filter(([file, entry]) => entry.type === type && !ignored(file)).map(([file]) => file);
}
