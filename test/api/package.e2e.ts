import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, realpathSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';

// What `npm pack` puts in the package: npm itself is run, so this lives with the end-to-end suites.
const ROOT = path.resolve(import.meta.dirname, '../..');
const read = (file: string): string => readFileSync(path.join(ROOT, file), 'utf8');
/** The checkout itself: under .test-build/ the top-level files are links back to it. */
const CHECKOUT = path.dirname(realpathSync(path.join(ROOT, 'package.json')));

/** Every file under `dir` (relative to the root). */
function tree(dir: string): string[] {
  return readdirSync(path.join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    const relative = `${dir}/${entry.name}`;
    return entry.isDirectory() ? tree(relative) : [relative];
  });
}

describe('the npm package', () => {
  const packed = (): string[] => {
    const { status, stdout, stderr } = spawnSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], {
      cwd: CHECKOUT,
      encoding: 'utf8',
      timeout: 60_000,
    });
    assert.equal(status, 0, stderr);
    return (JSON.parse(stdout) as { files: { path: string }[] }[])[0]!.files.map((file) => file.path);
  };

  it('ships the CLI, the schema, the examples the demo runs and the docs, without screenshots or source maps', () => {
    const files = packed();
    const demo = JSON.parse(read('examples/demo.json')) as { mission: string }[];
    for (const file of ['README.md', 'package.json', 'bin/redline.js', 'schema/mission.schema.json', 'examples/demo.json'])
      assert.ok(files.includes(file), file);
    for (const { mission } of demo) assert.ok(files.includes(mission), mission);
    // What bin/redline.js imports, and the CLI bundle it starts (the unbundled dist/cli/ is left out).
    const inCheckout = (file: string): string => readFileSync(path.join(CHECKOUT, file), 'utf8');
    const started = [...inCheckout('bin/redline.js').matchAll(/import\('\.\.\/(dist\/[^']+)'\)/g)].map((match) => match[1] as string);
    assert.deepEqual(started, ['dist/cli/version.js', 'dist/cli/start-bundle.js']);
    for (const file of [...started, 'dist/cli-bundle/main.cjs', 'dist/cli-bundle/bundle.json']) assert.ok(files.includes(file), file);
    assert.deepEqual(
      files.filter((file) => file.startsWith('dist/cli/') && !/^dist\/cli\/(version|start-bundle)\./.test(file)),
      [],
    );
    for (const doc of tree('docs').filter((file) => /\.(md|svg)$/.test(file))) assert.ok(files.includes(doc), doc);
    // The review app's screenshots stay in the repository (docs/review-app.md says so); the source maps point
    // at src/, which the package does not ship.
    assert.deepEqual(
      files.filter((file) => /\.(png|map)$/.test(file) || /^(src|test|bench|scripts)\//.test(file)),
      [],
    );
  });
});
