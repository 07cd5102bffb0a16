// A node:test reporter that adds up, per test file, the time of its top-level tests and prints the
// slowest files when the run ends: where the suite's time goes. Used beside the usual reporter:
//   node --test --test-reporter=spec --test-reporter-destination=stdout \
//     --test-reporter=./scripts/file-times.mjs --test-reporter-destination=stderr …
import path from 'node:path';

/** How many of the slowest files the summary lists: REDLINE_FILE_TIMES=all lists every file. */
const SHOWN = process.env.REDLINE_FILE_TIMES === 'all' ? Infinity : 15;

export default async function* fileTimes(source) {
  const times = new Map();
  for await (const event of source) {
    if ((event.type !== 'test:pass' && event.type !== 'test:fail') || event.data.nesting !== 0) continue;
    // A file of the compiled tree (scripts/build-tests.mjs) is named by its source.
    const file =
      event.data.file === undefined
        ? '(unknown)'
        : path
            .relative(process.cwd(), event.data.file)
            .replace(/^\.test-build\//, '')
            .replace(/\.js$/, '.ts');
    times.set(file, (times.get(file) ?? 0) + (event.data.details?.duration_ms ?? 0));
  }
  const slowest = [...times].sort((a, b) => b[1] - a[1]).slice(0, SHOWN);
  const total = [...times.values()].reduce((sum, ms) => sum + ms, 0);
  yield `\nslowest test files (top-level tests' time, of ${times.size} files, ${(total / 1000).toFixed(0)} s in all):\n`;
  for (const [file, ms] of slowest) yield `${(ms / 1000).toFixed(1).padStart(7)} s  ${file}\n`;
}
