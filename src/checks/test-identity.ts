import { realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
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

/**
 * Removes what changes from one attempt or run to the next from a test report's text: paths under the
 * check's copy become relative to it (`/tmp/redline-runs/R/check/test/a.js` → `test/a.js`, `file://`
 * URLs too), and any other directory directly under the system's temp dir becomes `<tmp>`.
 */
export function withoutTempPaths(text: string, dir: string): string {
  let out = text;
  for (const root of spellings(dir)) {
    out = out.replace(new RegExp(`(?:file://)?${escape(root)}/`, 'g'), '');
    out = out.replace(new RegExp(`(?:file://)?${escape(root)}(?![^\\s'"():,])`, 'g'), '.');
  }
  for (const root of spellings(tmpdir())) out = out.replace(new RegExp(`(?:file://)?${escape(root)}/[^/\\s'"():,]+`, 'g'), TEMP_DIR);
  return out;
}

function testId(result: TestResult): string {
  return result.suite === undefined ? result.name : `${result.suite} > ${result.name}`;
}

/**
 * The identity of each failing test in a reason code (`test.failed:<identity>`), in order: its suite and
 * name without temp paths, so it stays the same across attempts and runs. Tests that share a name (tape's
 * "should be deeply equivalent") get their location, `name @ file:line`, and what still collides its
 * position, ` #2`, ` #3`: every failing assertion counts once.
 */
export function failureIdentities(failed: readonly TestResult[], dir: string): string[] {
  const base = failed.map((test) => withoutTempPaths(testId(test), dir));
  const located = base.map((id, index) => {
    if (base.indexOf(id) === base.lastIndexOf(id)) return id;
    const { file, line } = failed[index] as TestResult;
    const place = file === undefined ? undefined : `${withoutTempPaths(file, dir)}${line === undefined ? '' : `:${line}`}`;
    return place === undefined ? id : `${id} @ ${place}`;
  });
  const seen = new Map<string, number>();
  return located.map((id) => {
    const count = (seen.get(id) ?? 0) + 1;
    seen.set(id, count);
    return count === 1 ? id : `${id} #${count}`;
  });
}
