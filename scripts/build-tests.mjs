// Compiles src/ and test/ to JavaScript once, into .test-build/, so that the suites do not pay the
// TypeScript loader (tsx) again in each of their test processes: the loader's start and its per-module
// transform cost more CPU than most test files themselves. .test-build/ mirrors the checkout: every other
// top-level entry (docs, examples, node_modules, package.json …) and test/fixtures are symlinks to the
// real ones, so a test that resolves a path from its own file finds what it finds in the checkout, and
// writes (golden fixtures) land in the checkout. `dist` is the compiled src/ (the CLI a test spawns runs
// the code under test, without a `tsc` build first) and bin/ is copied, so that its `../dist` is that
// one. Each .ts file is kept beside its .js, for tests that start a TypeScript child through tsx.
//
// The unit test files then run in groups, a few files of one folder to a process
// (.test-build/groups/<folder>-<n>.test.js imports them): each test process costs about a second of CPU
// to start and load the code under test, as much as many a file's tests, and the runner still names
// each test's own file. A group's files share the process: a file that changes process-wide state
// (environment, umask, listeners) puts it back, as it must for its own tests anyway.
//   node scripts/build-tests.mjs   → .test-build/{src,test}/**/*.js, .test-build/groups/*.test.js
import { build } from 'esbuild';
import { copyFile, mkdir, readdir, rm, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';

const ROOT = path.resolve(import.meta.dirname, '..');
const OUT = path.join(ROOT, '.test-build');
/** Compiled: the folders the tests import from. Left out: what the build must not mirror into itself. */
const COMPILED = new Set(['src', 'test']);
const COPIED = new Set(['bin']);
const LEFT_OUT = new Set(['.git', '.gitignore', '.test-build', 'coverage', 'study-out', 'dist']);
/** At most this many unit test files share a process: more saves little and lengthens the slowest group. */
const GROUP_SIZE = 6;
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

const groups = new Map();
for (const file of files.filter((name) => /^test\/[^/]+\/[^/]+\.test\.ts$/.test(name)).sort()) {
  const folder = file.split('/')[1];
  groups.set(folder, [...(groups.get(folder) ?? []), file]);
}
await mkdir(path.join(OUT, 'groups'));
for (const [folder, members] of groups) {
  const count = Math.ceil(members.length / GROUP_SIZE);
  for (let index = 0; index < count; index += 1) {
    // Spread evenly: 7 files make groups of 4 and 3, not 6 and 1.
    const part = members.filter((_, at) => at % count === index);
    const imports = part.map((file) => `import '../${file.replace(/\.ts$/, '.js')}';\n`).join('');
    await writeFile(path.join(OUT, 'groups', `${folder}-${index + 1}.test.js`), imports);
  }
}
