// Bundles the compiled CLI (dist/cli/main.js) and the runtime dependencies it imports into one CommonJS
// file, dist/cli-bundle/main.cjs, which bin/redline.js compiles with a V8 code cache. Two costs of a
// command's start go that way: resolving and linking some 500 small ES modules (about 120 ms of a
// `redline run` on Node 20), and compiling the code it runs (Node 20 keeps no compile cache for ES modules;
// bench/README.md, `cli-start` and `real-overhead`). A module is still evaluated only when a command first
// imports it (esbuild's lazy module wrappers): `redline --help` runs no more of the code than before.
// Optional peers (pg, pg-boss, OpenTelemetry, the AI and MCP SDKs, vega), the native SQLite driver and
// anything only a dev dependency provides stay outside, loaded from node_modules as before; their dynamic
// imports go through the loader's own `import()` (a script compiled from a code cache cannot import on
// Node 20). Beside the bundle: `bundle.json`, its content hash (the code cache's key) and the modules it
// evaluates as soon as it loads (paths relative to the package root; the rest announce themselves to a
// test hook, see `recordInits`).
//   node scripts/bundle-cli.mjs [ROOT-OF-COMPILED-CODE]   → <dir>/cli-bundle/{main.cjs,bundle.json}
import { build } from 'esbuild';
import { createHash } from 'node:crypto';
import { readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { Script } from 'node:vm';

const PACKAGE_ROOT = path.resolve(import.meta.dirname, '..');

/** The name the bundle calls the loader's `import()` by: a parameter of the function bin/redline.js wraps it in. */
export const IMPORT_PARAMETER = '__redlineImport';

/** The test hook a test build's bundle tells each module it evaluates to, by absolute path. */
const RECORD = "globalThis[Symbol.for('redline.test.moduleInit')]";

/** esbuild's lazy module wrapper, as it writes it: the test build's tells the hook before a module runs. */
const ESM_WRAPPER = 'var __esm = (fn, res, err) => function __init() {\n';
const RECORDING_ESM_WRAPPER = `${ESM_WRAPPER}  if (fn) ${RECORD}?.(require('node:path').resolve(__dirname, '../..', __getOwnPropNames(fn)[0]));\n`;

/**
 * Bundles `<compiled>/cli/main.js` into `<compiled>/cli-bundle/`. `root` is the folder the module paths are
 * relative to (the package root, or the test build that mirrors it). With `recordInits` (the test build),
 * the bundle passes the absolute path of each module it evaluates, as it evaluates it, to
 * `globalThis[Symbol.for('redline.test.moduleInit')]` when a test has set it: tests of what a command
 * loads read them.
 */
export async function bundleCli({ compiled = path.join(PACKAGE_ROOT, 'dist'), root = PACKAGE_ROOT, recordInits = false } = {}) {
  const manifest = JSON.parse(await readFile(path.join(PACKAGE_ROOT, 'package.json'), 'utf8'));
  const bundled = new Set(Object.keys(manifest.dependencies ?? {}));
  bundled.delete('better-sqlite3');
  const external = [
    ...Object.keys(manifest.dependencies ?? {}),
    ...Object.keys(manifest.peerDependencies ?? {}),
    ...Object.keys(manifest.optionalDependencies ?? {}),
    ...Object.keys(manifest.devDependencies ?? {}),
  ].filter((name) => !bundled.has(name));
  const outdir = path.join(compiled, 'cli-bundle');
  const outfile = path.join(outdir, 'main.cjs');
  await rm(outdir, { recursive: true, force: true });
  const result = await build({
    entryPoints: [path.join(compiled, 'cli', 'main.js')],
    outfile,
    bundle: true,
    format: 'cjs',
    platform: 'node',
    target: 'node20',
    external,
    absWorkingDir: root,
    metafile: true,
    logLevel: 'warning',
    define: { 'import.meta.url': '__redlineModuleUrl' },
    // The directive first, so that it stays one; then what `import.meta.url` stands for in every module.
    banner: {
      js: [
        '"use strict";',
        `if (typeof ${IMPORT_PARAMETER} !== 'function') throw new Error('dist/cli-bundle/main.cjs is started by bin/redline.js');`,
        "const __redlineModuleUrl = require('node:url').pathToFileURL(__filename).href;",
      ].join('\n'),
    },
  });
  let code = await readFile(outfile, 'utf8');
  code = routeDynamicImports(code, result.metafile, outfile, root);
  code = asciiOnly(code, outfile, root);
  const eager = eagerModules(result.metafile, path.relative(root, path.join(compiled, 'cli', 'main.js')));
  if (recordInits) {
    if (!code.includes(ESM_WRAPPER)) throw new Error('bundle-cli: esbuild no longer writes its lazy module wrapper as expected');
    const atLoad = `for (const file of ${JSON.stringify(eager)}) ${RECORD}?.(require('node:path').resolve(__dirname, '../..', file));\n`;
    code = code.replace(ESM_WRAPPER, `${atLoad}${RECORDING_ESM_WRAPPER}`);
  }
  // What the loader compiles, compiled once here: a bundle that does not parse fails the build, not a user's command.
  new Script(`(function (exports, require, module, __filename, __dirname, ${IMPORT_PARAMETER}) {${code}\n})`, { filename: outfile });
  await writeFile(outfile, code);
  const info = { hash: createHash('sha256').update(code).digest('hex'), eager };
  await writeFile(path.join(outdir, 'bundle.json'), `${JSON.stringify(info, null, 1)}\n`);
}

/**
 * The bundle's dynamic imports of packages left outside, `import("pg")`, made calls of the loader's
 * `import()`: the metafile names each, and every one must be found and nothing else that reads as an
 * import call may remain.
 */
function routeDynamicImports(code, metafile, outfile, root) {
  const wanted = new Set();
  for (const input of Object.values(metafile.inputs))
    for (const item of input.imports) if (item.kind === 'dynamic-import' && item.external) wanted.add(item.path);
  let routed = code;
  for (const specifier of wanted) {
    const call = `import(${JSON.stringify(specifier)})`;
    if (!routed.includes(call)) throw new Error(`bundle-cli: ${path.relative(root, outfile)} has no ${call} to route`);
    routed = routed.split(call).join(`${IMPORT_PARAMETER}(${JSON.stringify(specifier)})`);
  }
  // Comment lines aside (esbuild keeps doc comments), nothing may read as an import call.
  const statements = routed
    .split('\n')
    .filter((line) => !/^\s*(\/\/|\*|\/\*)/.test(line))
    .join('\n');
  const left = statements.match(/(?<![\w$.]|async )import\s*\(\s*[^)\s]/g);
  if (left !== null)
    throw new Error(`bundle-cli: ${path.relative(root, outfile)} still holds ${left.join(', ')}: only the loader can import`);
  return routed;
}

/**
 * The bundle with every character outside ASCII written as its `\\uXXXX` escape, which means the same
 * character in strings, templates, regular expressions, identifiers and comments: the loader then reads it
 * as one byte a character (a 2.8 MB file read as UTF-8 took about 12 ms, and became a two-byte string
 * twice the size for V8 to scan). A template read raw (`String.raw`) would see the escape, not the character:
 * the build fails rather than change one.
 */
function asciiOnly(code, outfile, root) {
  for (const line of code.split('\n'))
    if (/\.raw\b/.test(line) && /[\u0080-\uffff]/.test(line))
      throw new Error(
        `bundle-cli: ${path.relative(root, outfile)} reads a template raw on a line outside ASCII: ${line.trim().slice(0, 120)}`,
      );
  // A line separator ends a comment where its escape would not; an escaped surrogate pair is no identifier:
  // neither occurs in the bundle, and the build fails rather than guess.
  const unsafe = /[\u2028\u2029\ud800-\udfff]/.exec(code);
  if (unsafe !== null)
    throw new Error(
      `bundle-cli: ${path.relative(root, outfile)} holds U+${unsafe[0].charCodeAt(0).toString(16).toUpperCase()}, which it cannot escape safely`,
    );
  // An escaped character (`\\·`) would become an escaped backslash and text: refused too.
  const escaped = /\\[\u0080-\uffff]/.exec(code);
  if (escaped !== null) throw new Error(`bundle-cli: ${path.relative(root, outfile)} escapes a character outside ASCII: ${escaped[0]}`);
  return code.replace(/[\u0080-\uffff]/g, (character) => `\\u${character.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/**
 * The modules the bundle evaluates as soon as it loads: the entry's static imports, transitively (the
 * metafile's paths). Everything else runs only when a command imports it.
 */
function eagerModules(metafile, entry) {
  const eager = new Set();
  const visit = (file) => {
    if (eager.has(file)) return;
    eager.add(file);
    for (const item of metafile.inputs[file]?.imports ?? []) if (item.kind === 'import-statement' && !item.external) visit(item.path);
  };
  visit(entry);
  return [...eager];
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const compiled = process.argv[2] === undefined ? undefined : path.resolve(process.argv[2]);
  await bundleCli(compiled === undefined ? {} : { compiled, root: path.dirname(compiled) });
}
