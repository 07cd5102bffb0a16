import assert from 'node:assert/strict';
import { linkSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { normalPath } from '../../src/core/candidate.js';
import { RunWorkspace } from '../../src/workspace/run-workspace.js';
import { EscapeError } from '../../src/errors/escape-error.js';
import { removeInside, writeInside } from '../../src/workspace/safe-fs.js';
import { buildTree, OUTSIDE, pathsOf, pick, treeSpec, type TreeSpec } from './arbitraries.js';
import { applyCheckAction, checkAction, type CheckAction } from './check-actions.js';
import { alwaysIgnored, readTree, tempBase, treeDifferences, writeTree, type Tree } from './tree.js';

// Each case lays a tree of a few dozen entries (and removes it): 20 keep the suite quick, and every run
// draws new cases (fast-check seeds from the clock). More for a longer hunt:
// WORKSPACE_PROPERTY_RUNS=500 node --import tsx --test test/workspace/escape.property.test.ts
const NUM_RUNS = Number(process.env.WORKSPACE_PROPERTY_RUNS ?? 20);

/**
 * The layout every case gets: `base/d1/d2/{ws,sentinel,scratch}`. The sentinel is what the workspace's
 * outward symlinks point at; `..` paths never climb more than two levels, so whatever goes wrong stays
 * inside `base`, and a walk of `base` (workspace and scratch left out) sees every stray write.
 */
function lay(spec: TreeSpec): { base: string; ws: string; sentinel: string; scratch: string; tree: Tree; remove: () => void } {
  const { dir: base, remove } = tempBase('escape');
  const top = path.join(base, 'd1', 'd2');
  const ws = path.join(top, 'ws');
  const sentinel = path.join(top, 'sentinel');
  mkdirSync(ws, { recursive: true });
  mkdirSync(sentinel);
  const tree = buildTree(spec, sentinel);
  writeTree(ws, tree);
  writeTree(sentinel, OUTSIDE);
  return { base, ws, sentinel, scratch: path.join(top, 'scratch'), tree, remove };
}

/** Everything under `base` except the workspace and the run's scratch directory. */
function surroundings(base: string): Tree {
  return new Map([...readTree(base)].filter(([file]) => !/^d1\/d2\/(ws|scratch)(\/|$)/.test(file)));
}

type Shape =
  | 'in-dir'
  | 'through-link'
  | 'dot-through-link'
  | 'up-through-link'
  | 'nul'
  | 'absolute'
  | 'absolute-sentinel'
  | 'leave'
  | 'leave-deep'
  | 'name-dir'
  | 'dir-slash'
  | 'dot'
  | 'empty'
  | 'under-file'
  | 'backslash'
  | 'ignored'
  | 'plain'
  | 'new-dir';

const shape = fc.constantFrom<Shape>(
  'in-dir',
  'in-dir',
  'plain',
  'new-dir',
  'through-link',
  'dot-through-link',
  'up-through-link',
  'nul',
  'absolute',
  'absolute-sentinel',
  'leave',
  'leave-deep',
  'name-dir',
  'dir-slash',
  'dot',
  'empty',
  'under-file',
  'backslash',
  'ignored',
  'plain',
  'new-dir',
);

/** A raw path of one shape, aimed at what `tree` holds (no `..` climbs more than two levels above the root). */
function pathOf(kind: Shape, index: number, tree: Tree): string {
  const links = pathsOf(tree, 'symlink', alwaysIgnored);
  const dirs = pathsOf(tree, 'dir', alwaysIgnored);
  const files = pathsOf(tree, 'file', alwaysIgnored);
  const link = links.length === 0 ? 'no-link' : pick(links, index);
  const leaf = pick(['x.txt', 'inner.txt', 'file.txt', 'dir/inner.txt'], index);
  switch (kind) {
    case 'in-dir':
      return `${pick(['src', ...dirs], index)}/${leaf}`;
    case 'through-link':
      return `${link}/${leaf}`;
    case 'dot-through-link':
      return `./${link}/${leaf}`;
    case 'up-through-link':
      return `zz/../${link}/${leaf}`;
    case 'nul':
      return `src/a\0b.txt`;
    case 'absolute':
      return `/${link}/${leaf}`;
    case 'absolute-sentinel':
      return '/../sentinel/file.txt';
    case 'leave':
      return pick(['../sentinel/file.txt', '../sentinel/dir/new.txt', '../../x.txt', '..'], index);
    case 'leave-deep':
      return pick(['a/../../sentinel/file.txt', 'node_modules/../../sentinel/dir/inner.txt', `${link}/../../sentinel/file.txt`], index);
    case 'name-dir':
      return pick(['', ...dirs], index) || 'node_modules';
    case 'dir-slash':
      return `${pick(dirs.length === 0 ? ['node_modules'] : dirs, index)}/`;
    case 'dot':
      return pick(['.', './', 'a/..'], index);
    case 'empty':
      return '';
    case 'under-file':
      return `${files.length === 0 ? 'node_modules/pkg/index.js' : pick(files, index)}/x.txt`;
    case 'backslash':
      return pick(['..\\sentinel\\file.txt', `${link}\\x.txt`, 'C:\\x.txt', '\\x.txt'], index);
    case 'ignored':
      return pick(['.git/hooks/pre-commit', 'node_modules/pkg/.git/HEAD', '.redline/x'], index);
    case 'plain':
      return pick(['new.txt', ...files], index);
    case 'new-dir':
      return `fresh-${index % 3}/deeper/n.txt`;
  }
}

/** A check that points part of the copy at the sentinel itself (not at a look-alike). */
type SentinelAction =
  | { readonly kind: 'dir-to-sentinel' | 'file-to-sentinel' | 'new-to-sentinel'; readonly pick: number }
  | { readonly kind: 'messy'; readonly action: CheckAction };

const sentinelAction: fc.Arbitrary<SentinelAction> = fc.oneof(
  fc.record({ kind: fc.constantFrom('dir-to-sentinel' as const, 'file-to-sentinel' as const, 'new-to-sentinel' as const), pick: fc.nat() }),
  fc.record({ kind: fc.constant('messy' as const), action: checkAction }),
);

function applySentinelAction(copy: string, sentinel: string, lookalikes: string, action: SentinelAction, serial: number): string {
  if (action.kind === 'messy') return applyCheckAction(copy, lookalikes, action.action, serial);
  const tree = readTree(copy);
  const dirs = [...tree].filter(([, entry]) => entry.type === 'dir').map(([file]) => file);
  const files = [...tree].filter(([, entry]) => entry.type === 'file').map(([file]) => file);
  const at = (file: string): string => path.join(copy, file);
  if (action.kind === 'new-to-sentinel') {
    const file = pick(['fresh-0', 'fresh-1', 'new.txt', 'src'], action.pick);
    rmSync(at(file), { recursive: true, force: true });
    symlinkSync(sentinel, at(file));
    return `symlink ${file} → the sentinel`;
  }
  const targets = action.kind === 'dir-to-sentinel' ? dirs : files;
  if (targets.length === 0) return `${action.kind}: nothing to apply it to`;
  const file = pick(targets, action.pick);
  rmSync(at(file), { recursive: true });
  symlinkSync(action.kind === 'dir-to-sentinel' ? path.join(sentinel, 'dir') : path.join(sentinel, 'file.txt'), at(file));
  return `replace ${file} by a symlink into the sentinel`;
}

describe('nothing a candidate or a check does writes outside the copy', () => {
  it('random candidate paths are refused or written inside the copy; the sentinel and the workspace stay byte-identical', async (t) => {
    const started = performance.now();
    let written = 0;
    let refused = 0;
    await fc.assert(
      fc.asyncProperty(
        treeSpec,
        fc.array(
          fc.record({
            paths: fc.array(fc.tuple(shape, fc.nat(), fc.oneof(fc.string({ maxLength: 8 }), fc.constant(null))), {
              minLength: 1,
              maxLength: 5,
            }),
            actions: fc.array(sentinelAction, { maxLength: 4 }),
          }),
          { minLength: 1, maxLength: 4 },
        ),
        async (spec, steps) => {
          const laid = lay(spec);
          const lookalikes = path.join(laid.base, 'lookalikes');
          mkdirSync(lookalikes);
          const run = await RunWorkspace.start({ runId: 'escape', workspace: laid.ws, scratchDir: laid.scratch });
          const log: string[] = [];
          try {
            let serial = 0;
            for (const { paths, actions } of steps) {
              // Normalized as the loop does before it asks (a non-normal spelling is reset.property.test.ts's matter).
              // A path is kept when the candidate with it is still accepted as a whole.
              let candidate: Record<string, string | null> = {};
              for (const [kind, index, content] of paths) {
                const next = { ...candidate, [normalPath(pathOf(kind, index, laid.tree))]: content };
                if (run.candidateProblems(next).length === 0) candidate = next;
                else refused += 1;
              }
              log.push(`checkCopy(${JSON.stringify(candidate)})`);
              // A check may itself have written into the sentinel through its symlinks: only the reset is judged.
              const around = surroundings(laid.base);
              const { dir } = await run.checkCopy(candidate);
              written += 1;
              for (const [file, content] of Object.entries(candidate)) {
                if (content !== null)
                  assert.equal(readFileSync(path.join(dir, file), 'utf8'), content, `${file} was accepted but not written in the copy`);
              }
              assert.deepEqual(treeDifferences(around, surroundings(laid.base)), [], `written outside the copy after ${log.join('; ')}`);
              for (const action of actions) log.push(applySentinelAction(dir, laid.sentinel, lookalikes, action, (serial += 1)));
            }
            // A last reset, after the last check's symlinks.
            const around = surroundings(laid.base);
            await run.checkCopy({ 'src/a.txt': 'last', 'fresh-0/n.txt': 'last' });
            assert.deepEqual(
              treeDifferences(around, surroundings(laid.base)),
              [],
              `written outside the copy after ${log.join('; ')}; last reset`,
            );
            assert.deepEqual(treeDifferences(laid.tree, readTree(laid.ws)), [], 'the workspace changed');
          } finally {
            await run.dispose();
            laid.remove();
          }
        },
      ),
      { numRuns: NUM_RUNS },
    );
    t.diagnostic(`${NUM_RUNS} cases, ${written} resets, ${refused} paths refused, ${Math.round(performance.now() - started)} ms`);
  });

  it('writeInside and removeInside (refuse) on a live tree with symlinks refuse or touch only the path they name', async (t) => {
    const started = performance.now();
    let refusals = 0;
    // Paths in normal form (what callers pass), plus absolute and backslash spellings; `..`, `.` and the root are the next test's.
    const inward = fc.constantFrom<Shape>(
      'through-link',
      'absolute',
      'name-dir',
      'dir-slash',
      'under-file',
      'backslash',
      'plain',
      'new-dir',
    );
    await fc.assert(
      fc.property(treeSpec, inward, fc.nat(), fc.boolean(), (spec, kind, index, remove) => {
        const laid = lay(spec);
        try {
          const around = surroundings(laid.base);
          const file = pathOf(kind, index, laid.tree);
          const named = path.posix.normalize(file).replace(/^\/+|\/+$/g, '');
          try {
            if (remove) removeInside(laid.ws, file);
            else writeInside(laid.ws, file, 'written');
          } catch (error) {
            assert.ok(
              error instanceof EscapeError,
              `${remove ? 'removeInside' : 'writeInside'}(${JSON.stringify(file)}) threw ${String(error)}`,
            );
            refusals += 1;
            assert.deepEqual(
              treeDifferences(laid.tree, readTree(laid.ws)),
              [],
              `refused ${JSON.stringify(file)} but changed the workspace`,
            );
          }
          assert.deepEqual(
            treeDifferences(around, surroundings(laid.base)),
            [],
            `${remove ? 'removeInside' : 'writeInside'}(${JSON.stringify(file)}) wrote outside the workspace`,
          );
          // Inside, only the named path (and, for a write, the directories it needed) may differ.
          const strays = treeDifferences(laid.tree, readTree(laid.ws)).filter((line) => {
            const at = line.slice(0, line.indexOf(': '));
            return !(at === named || at.startsWith(`${named}/`) || (!remove && named.startsWith(`${at}/`)));
          });
          assert.deepEqual(strays, [], `${remove ? 'removeInside' : 'writeInside'}(${JSON.stringify(file)}) changed other paths`);
        } finally {
          laid.remove();
        }
      }),
      { numRuns: NUM_RUNS * 3 },
    );
    t.diagnostic(`${NUM_RUNS * 3} cases, ${refusals} refused, ${Math.round(performance.now() - started)} ms`);
  });

  it('writeInside and removeInside (refuse) refuse a path that names the root, leaves it, or is not in normal form, and change nothing', () => {
    const { dir: base, remove } = tempBase('leave');
    try {
      const outcomes: string[] = [];
      for (const file of [
        '../sentinel/file.txt',
        'a/../../sentinel/file.txt',
        '..',
        '',
        '.',
        '/',
        'src/../..',
        'zz/../link/x.txt',
        'src/a\0b.txt',
      ]) {
        for (const operation of ['write', 'remove'] as const) {
          const top = path.join(base, 'd1', 'd2');
          rmSync(path.join(base, 'd1'), { recursive: true, force: true });
          mkdirSync(path.join(top, 'ws', 'src'), { recursive: true });
          writeFileSync(path.join(top, 'ws', 'src', 'a.txt'), 'a');
          symlinkSync('src', path.join(top, 'ws', 'link'));
          mkdirSync(path.join(top, 'sentinel'));
          writeTree(path.join(top, 'sentinel'), OUTSIDE);
          const before = readTree(base);
          let outcome: string;
          try {
            if (operation === 'write') writeInside(path.join(top, 'ws'), file, 'escaped');
            else removeInside(path.join(top, 'ws'), file);
            outcome = 'done';
          } catch (error) {
            // A NUL byte is a bad argument (Node's TypeError) rather than an escape; either way nothing may change.
            outcome =
              error instanceof EscapeError || (file.includes('\0') && error instanceof TypeError) ? 'refused' : `threw ${String(error)}`;
          }
          const changed = treeDifferences(before, readTree(base));
          // Doing nothing is as good as refusing; writing or removing anything is not.
          if (outcome.startsWith('threw') || changed.length > 0)
            outcomes.push(`${operation}Inside(ws, ${JSON.stringify(file)}): ${outcome}; changed ${JSON.stringify(changed)}`);
        }
      }
      assert.deepEqual(outcomes, []);
    } finally {
      remove();
    }
  });

  it('a check that replaces src by a symlink to the sentinel does not make the next reset write into the sentinel', async () => {
    const { dir: base, remove } = tempBase('src-link');
    try {
      const ws = path.join(base, 'ws');
      const sentinel = path.join(base, 'sentinel');
      mkdirSync(path.join(ws, 'src'), { recursive: true });
      writeFileSync(path.join(ws, 'src', 'a.txt'), 'original a');
      writeFileSync(path.join(ws, 'src', 'b.txt'), 'original b');
      mkdirSync(sentinel);
      writeTree(sentinel, OUTSIDE);
      const run = await RunWorkspace.start({ runId: 'src-link', workspace: ws, scratchDir: path.join(base, 'scratch') });
      try {
        const { dir } = await run.checkCopy({});
        rmSync(path.join(dir, 'src'), { recursive: true });
        symlinkSync(sentinel, path.join(dir, 'src'));
        await run.checkCopy({ 'src/a.txt': 'x' });
        assert.deepEqual(treeDifferences(OUTSIDE, readTree(sentinel)), []);
        assert.deepEqual(
          treeDifferences(
            new Map([
              ['src', { type: 'dir', mode: 0o755 }],
              ['src/a.txt', { type: 'file', mode: 0o644, content: Buffer.from('x') }],
              ['src/b.txt', { type: 'file', mode: 0o644, content: Buffer.from('original b') }],
            ]),
            readTree(dir),
          ),
          [],
        );
      } finally {
        await run.dispose();
      }
    } finally {
      remove();
    }
  });

  for (const sameContent of [false, true]) {
    it(`a check that hard-links a file from outside into the copy (${sameContent ? 'same' : 'other'} content) does not make the next reset write into that file`, async () => {
      const { dir: base, remove } = tempBase('hardlink');
      try {
        const ws = path.join(base, 'ws');
        const store = path.join(base, 'store');
        mkdirSync(path.join(ws, 'node_modules', 'pkg'), { recursive: true });
        writeFileSync(path.join(ws, 'node_modules', 'pkg', 'index.js'), 'module.exports = 1;\n');
        mkdirSync(store);
        // Like a package manager's content store that a check's install hard-links into node_modules.
        const stored = sameContent ? 'module.exports = 1;\n' : 'module.exports = 2; // version 2 in the store\n';
        writeFileSync(path.join(store, 'index.js'), stored);
        const run = await RunWorkspace.start({ runId: 'hardlink', workspace: ws, scratchDir: path.join(base, 'scratch') });
        try {
          const { dir } = await run.checkCopy({});
          rmSync(path.join(dir, 'node_modules', 'pkg', 'index.js'));
          linkSync(path.join(store, 'index.js'), path.join(dir, 'node_modules', 'pkg', 'index.js'));
          await run.checkCopy(sameContent ? { 'node_modules/pkg/index.js': 'patched by the candidate\n' } : {});
          assert.equal(
            readFileSync(path.join(store, 'index.js'), 'utf8'),
            stored,
            'the reset wrote into a file outside the copy through its hard link',
          );
        } finally {
          await run.dispose();
        }
      } finally {
        remove();
      }
    });
  }
});
