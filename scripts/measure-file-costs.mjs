// Measures the CPU seconds (user + system, the file's children included) each unit test file costs when
// run alone, two at a time, and writes them to test/file-costs.json, which scripts/build-tests.mjs packs
// the test groups by. Run it after `node scripts/build-tests.mjs`, on a machine doing little else:
//   node scripts/build-tests.mjs && node scripts/measure-file-costs.mjs
import { spawn } from 'node:child_process';
import { readdir, writeFile } from 'node:fs/promises';
import path from 'node:path';

const ROOT = path.resolve(import.meta.dirname, '..');
const BUILT = path.join(ROOT, '.test-build');

/** Every compiled unit test file, by its source name (test/<folder>/<name>.test.ts). */
async function unitFiles() {
  const names = [];
  for (const folder of await readdir(path.join(BUILT, 'test'), { withFileTypes: true })) {
    if (!folder.isDirectory() || folder.name === 'fixtures') continue;
    for (const name of await readdir(path.join(BUILT, 'test', folder.name))) {
      if (name.endsWith('.test.js')) names.push(`test/${folder.name}/${name.replace(/\.js$/, '.ts')}`);
    }
  }
  return names.sort();
}

/** The CPU seconds `node --test FILE` took, its descendants included (they are waited for). */
function cpuSeconds(file) {
  const script = `node --test --test-reporter=dot "$1" >/dev/null 2>&1; status=$?; times; exit $status`;
  return new Promise((resolve) => {
    const child = spawn('bash', ['-c', script, 'measure', path.join(BUILT, file.replace(/\.ts$/, '.js'))], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (chunk) => (out += chunk));
    child.on('close', (code) => {
      // `times` prints the shell's own times, then its children's: "0m1.234s 0m0.567s".
      const children =
        out
          .trim()
          .split('\n')
          .at(-1)
          .match(/(\d+)m([\d.]+)s/g) ?? [];
      const seconds = children.map((part) => {
        const [, minutes, rest] = /(\d+)m([\d.]+)s/.exec(part);
        return Number(minutes) * 60 + Number(rest);
      });
      if (code !== 0) console.error(`${file}: failed (exit ${code}); its cost is counted all the same`);
      resolve(Math.round(seconds.reduce((sum, value) => sum + value, 0) * 10) / 10);
    });
  });
}

const files = await unitFiles();
const costs = {};
let next = 0;
await Promise.all(
  [0, 1].map(async () => {
    while (next < files.length) {
      const file = files[next++];
      costs[file] = await cpuSeconds(file);
      console.log(`${costs[file].toFixed(1).padStart(6)} s  ${file}`);
    }
  }),
);
const sorted = Object.fromEntries(Object.entries(costs).sort(([a], [b]) => a.localeCompare(b)));
await writeFile(path.join(ROOT, 'test/file-costs.json'), `${JSON.stringify(sorted, null, 2)}\n`);
console.log(
  `wrote test/file-costs.json: ${files.length} files, ${Object.values(costs)
    .reduce((a, b) => a + b, 0)
    .toFixed(0)} s of CPU`,
);
