// Bundles the compiled CLI (dist/cli/main.js) and the runtime dependencies it imports into
// dist/cli-bundle/: main.js, one chunk per command module loaded on demand, and chunks they share.
// bin/redline.js starts from it. Resolving and linking some 500 small ES modules one by one cost Node 20
// about 120 ms of a `redline run`'s start (bench/README.md, `cli-start`); a handful of chunks cost a
// fraction of that. Optional peers (pg, pg-boss, OpenTelemetry, the AI and MCP SDKs, vega), the native
// SQLite driver and anything only a dev dependency provides stay outside, loaded from node_modules as
// before. `chunks.json` beside the chunks lists, for each, the modules it holds (paths relative to the
// package root): tests that check which modules a command loads read their chunks through it.
//   node scripts/bundle-cli.mjs [ROOT-OF-COMPILED-CODE]   → <dir>/cli-bundle/{main.js,*.js,chunks.json}
import { build } from 'esbuild';
import { readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const PACKAGE_ROOT = path.resolve(import.meta.dirname, '..');

/**
 * Bundles `<compiled>/cli/main.js` into `<compiled>/cli-bundle/`. `root` is the folder the chunk list's
 * paths are relative to (the package root, or the test build that mirrors it).
 */
export async function bundleCli({ compiled = path.join(PACKAGE_ROOT, 'dist'), root = PACKAGE_ROOT } = {}) {
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
  await rm(outdir, { recursive: true, force: true });
  const result = await build({
    entryPoints: [path.join(compiled, 'cli', 'main.js')],
    outdir,
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    external,
    absWorkingDir: root,
    metafile: true,
    logLevel: 'warning',
    // CommonJS dependencies in an ES module bundle call `require` for Node's own modules.
    banner: {
      js: "import { createRequire as __redlineCreateRequire } from 'node:module';\nconst require = __redlineCreateRequire(import.meta.url);",
    },
  });
  const chunks = {};
  for (const [output, { inputs }] of Object.entries(result.metafile.outputs))
    chunks[path.basename(output)] = Object.keys(inputs).map((input) => path.relative(root, path.resolve(root, input)));
  await writeFile(path.join(outdir, 'chunks.json'), `${JSON.stringify(chunks, null, 1)}\n`);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const compiled = process.argv[2] === undefined ? undefined : path.resolve(process.argv[2]);
  await bundleCli(compiled === undefined ? {} : { compiled, root: path.dirname(compiled) });
}
