// Compiles src/ and test/ to JavaScript once, into .test-build/, so that the suites do not pay the
// TypeScript loader (tsx) again in each of their test processes: the loader's start and its per-module
// transform cost more CPU than most test files themselves. .test-build/ mirrors the checkout: every other
// top-level entry (docs, examples, node_modules, package.json …) and test/fixtures are symlinks to the
// real ones, so a test that resolves a path from its own file finds what it finds in the checkout, and
// writes (golden fixtures) land in the checkout. `dist` is the compiled src/ (the CLI a test spawns runs
// the code under test, without a `tsc` build first) and bin/ is copied, so that its `../dist` is that
// one. Each .ts file is kept beside its .js, for tests that start a TypeScript child through tsx.
//
// The unit test files then run in groups, about eight files to a process
// (.test-build/groups/<nn>.test.js imports them, the costliest group first): each test process costs about a second of CPU
// to start and load the code under test, as much as many a file's tests, and the runner still names
// each test's own file. A group's files share the process: a file that changes process-wide state
// (environment, umask, listeners) puts it back, as it must for its own tests anyway.
//   node scripts/build-tests.mjs   → .test-build/{src,test}/**/*.js, .test-build/groups/*.test.js
import { build } from 'esbuild';
import { copyFile, mkdir, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { bundleCli } from './bundle-cli.mjs';

const ROOT = path.resolve(import.meta.dirname, '..');
const OUT = path.join(ROOT, '.test-build');
/** Compiled: the folders the tests import from. Left out: what the build must not mirror into itself. */
const COMPILED = new Set(['src', 'test']);
const COPIED = new Set(['bin']);
const LEFT_OUT = new Set(['.git', '.gitignore', '.test-build', 'coverage', 'study-out', 'dist']);
/** About this many unit test files share a process, on average: more saves little and lengthens the slowest group. */
const GROUP_SIZE = 8;
/** Linked whole, not compiled: fixtures are data, and tests write golden files into them. */
const LINKED_INSIDE = new Set(['test/fixtures']);

/** Every file under `dir` (relative to ROOT), the linked folders left out. */
async function filesUnder(dir) {
  const files = [];
  for (const entry of await readdir(path.join(ROOT, dir), { withFileTypes: true })) {
    const relative = path.posix.join(dir, entry.name);
    if (LINKED_INSIDE.has(relative)) continue;
    if (entry.isDirectory()) files.push(...(await filesUnder(relative)));
    else if (entry.isFile()) files.push(relative);
  }
  return files;
}

const link = async (relative) => {
  const at = path.join(OUT, relative);
  await mkdir(path.dirname(at), { recursive: true });
  await symlink(path.relative(path.dirname(at), path.join(ROOT, relative)), at);
};

await rm(OUT, { recursive: true, force: true });
await mkdir(OUT);
for (const entry of await readdir(ROOT)) {
  if (!COMPILED.has(entry) && !COPIED.has(entry) && !LEFT_OUT.has(entry)) await link(entry);
}
for (const relative of LINKED_INSIDE) await link(relative);
await symlink('src', path.join(OUT, 'dist'));

const files = (await Promise.all([...COMPILED, ...COPIED].map(filesUnder))).flat();
const sources = files.filter((file) => file.endsWith('.ts') && !file.endsWith('.d.ts'));
await build({
  entryPoints: sources.map((file) => path.join(ROOT, file)),
  outdir: OUT,
  outbase: ROOT,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  sourcemap: 'linked',
  logLevel: 'warning',
});
await Promise.all(
  files.map(async (file) => {
    await mkdir(path.dirname(path.join(OUT, file)), { recursive: true });
    await copyFile(path.join(ROOT, file), path.join(OUT, file));
  }),
);
// The CLI a test spawns is the bundle bin/redline.js starts, made from the code under test.
await bundleCli({ compiled: path.join(OUT, 'src'), root: OUT, recordInits: true });

// Groups are packed by cost: test/file-costs.json holds each file's CPU seconds as last measured
// (REDLINE_FILE_TIMES=write rewrites it from a run's own times); a file it does not list counts as its
// median. The costliest file goes first into the cheapest group, and so on down, and the runner starts the
// costliest groups first: no group of several slow files is left to run alone at the end.
const costs = JSON.parse(await readFile(path.join(ROOT, 'test/file-costs.json'), 'utf8'));
const unitFiles = files.filter((name) => /^test\/[^/]+\/[^/]+\.test\.ts$/.test(name)).sort();
const known = Object.values(costs).sort((a, b) => a - b);
const median = known[Math.floor(known.length / 2)] ?? 1;
const costOf = (file) => costs[file] ?? median;
const groups = Array.from({ length: Math.ceil(unitFiles.length / GROUP_SIZE) }, () => ({ cost: 0, files: [] }));
for (const file of [...unitFiles].sort((a, b) => costOf(b) - costOf(a) || a.localeCompare(b))) {
  const cheapest = groups.reduce((best, group) => (group.cost < best.cost ? group : best));
  cheapest.files.push(file);
  cheapest.cost += costOf(file);
}
await mkdir(path.join(OUT, 'groups'));
const ordered = groups.filter((group) => group.files.length > 0).sort((a, b) => b.cost - a.cost);
const width = String(ordered.length).length;
for (const [index, group] of ordered.entries()) {
  const imports = group.files.map((file) => `import '../${file.replace(/\.ts$/, '.js')}';\n`).join('');
  await writeFile(path.join(OUT, 'groups', `${String(index + 1).padStart(width, '0')}.test.js`), imports);
}
