import { realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { InventoryCase, TestInventory } from '../core/test-inventory.js';
import type { TestResult } from './reports/test-result.js';

/** Stands for a temporary directory outside the check's copy in names, files and messages. */
export const TEMP_DIR = '<tmp>';

const escape = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

function spellings(dir: string): string[] {
  let real = dir;
  try {
    real = realpathSync(dir);
  } catch {
    // A directory that is gone has only the spelling it was given.
  }
  return [...new Set([dir, real])].sort((a, b) => b.length - a.length);
}

/** Text to scrub of temp paths: see {@link tempPathScrubber}. */
export type TempPathScrubber = (text: string) => string;

/**
 * Removes what changes from one attempt or run to the next from a test report's text: paths under the
 * check's copy become relative to it (`/tmp/redline-runs/R/check/test/a.js` → `test/a.js`, `file://`
 * URLs too), and any other directory directly under the system's temp dir becomes `<tmp>`. The
 * directories' real paths are read once, here: build one per report, not one per line.
 */
export function tempPathScrubber(dir: string): TempPathScrubber {
  // Each rule applies only to text holding its directory (which every match spells out): most lines hold none.
  const rules: { readonly root: string; readonly pattern: RegExp; readonly by: string }[] = [];
  for (const root of spellings(dir)) {
    rules.push({ root, pattern: new RegExp(`(?:file://)?${escape(root)}/`, 'g'), by: '' });
    rules.push({ root, pattern: new RegExp(`(?:file://)?${escape(root)}(?![^\\s'"():,])`, 'g'), by: '.' });
  }
  for (const root of spellings(tmpdir()))
    rules.push({ root, pattern: new RegExp(`(?:file://)?${escape(root)}/[^/\\s'"():,]+`, 'g'), by: TEMP_DIR });
  return (text) => {
    let out = text;
    for (const { root, pattern, by } of rules) if (out.includes(root)) out = out.replace(pattern, by);
    return out;
  };
}

/** {@link tempPathScrubber} of `dir`, applied to one text. */
export function withoutTempPaths(text: string, dir: string): string {
  return tempPathScrubber(dir)(text);
}

/** A test's file relative to the copy the check ran in (a report may give it absolute or as a URL). */
export function relativeTo(dir: string, file: string, scrub: TempPathScrubber = tempPathScrubber(dir)): string {
  const plain = file.startsWith('file://') ? new URL(file).pathname : file;
  const stable = scrub(plain);
  return stable === plain && path.isAbsolute(plain) ? path.relative(dir, plain) : stable;
}

/** A test's suites and name, ` > ` between them. */
export function testId(result: TestResult): string {
  return result.suite === undefined ? result.name : `${result.suite} > ${result.name}`;
}

/** `id`, or when an earlier case took it, `id #2`, `id #3`, …: the first free one. */
function distinct(id: string, taken: Set<string>, counts: Map<string, number>): string {
  let count = counts.get(id) ?? 0;
  let unique: string;
  do {
    count += 1;
    unique = count === 1 ? id : `${id} #${count}`;
  } while (taken.has(unique));
  counts.set(id, count);
  taken.add(unique);
  return unique;
}

/**
 * Every case of a report, in report order, by an identity that stays the same across attempts and runs
 * and whether the case passes or fails: its suites and name without temp paths, prefixed by its file
 * (`test/a.test.js > math > adds`) only when the report declares one in the case's own fields (see
 * `TestResult.declaredFile`), never by a file read from a failure's stack. Cases that share all of it
 * (tape's `should be equal` assertions of one test) get ` #2`, ` #3` in report order. Line numbers are
 * never part of it.
 *
 * @example
 * inventoryOf([{ name: 'adds', status: 'pass' }, { name: 'adds', status: 'fail', file: 'a.js', line: 3 }], '/copy');
 * // { cases: [{ id: 'adds', status: 'pass' }, { id: 'adds #2', status: 'fail' }] }
 */
export function inventoryOf(tests: readonly TestResult[], dir: string): TestInventory {
  const taken = new Set<string>();
  const counts = new Map<string, number>();
  const scrub = tempPathScrubber(dir);
  const cases = tests.map((test): InventoryCase => {
    const file = test.declaredFile === undefined ? undefined : relativeTo(dir, test.declaredFile, scrub);
    const name = scrub(testId(test));
    const id = distinct(file === undefined ? name : `${file} > ${name}`, taken, counts);
    return { id, status: test.status, ...(file === undefined ? {} : { file }) };
  });
  return { cases };
}

/**
 * The identity of each failing test in a reason code (`test.failed:<identity>`), in order: its suite and
 * name without temp paths, so it stays the same across attempts and runs. Tests that share a name (tape's
 * "should be deeply equivalent") get their location, `name @ file:line`, and what still collides its
 * position, ` #2`, ` #3`: every failing assertion counts once.
 */
export function failureIdentities(failed: readonly TestResult[], dir: string): string[] {
  const scrub = tempPathScrubber(dir);
  const base = failed.map((test) => scrub(testId(test)));
  const located = base.map((id, index) => {
    if (base.indexOf(id) === base.lastIndexOf(id)) return id;
    const { file, line } = failed[index] as TestResult;
    const place = file === undefined ? undefined : `${scrub(file)}${line === undefined ? '' : `:${line}`}`;
    return place === undefined ? id : `${id} @ ${place}`;
  });
  const seen = new Map<string, number>();
  return located.map((id) => {
    const count = (seen.get(id) ?? 0) + 1;
    seen.set(id, count);
    return count === 1 ? id : `${id} #${count}`;
  });
}
