import type { Finding } from '../core/finding.js';
import { spentWords } from '../core/model-call.js';
import { allowedMissing, inventoryCounts, type TestInventory } from '../core/test-inventory.js';
import type { RunResult } from '../loop/run-mission.js';
import type { StartedData } from '../ledger/run-records.js';
import { clean } from './terminal-text.js';

/** A test inventory in words: "797 tests in 23 files (796 pass, 1 fail, 0 skip, 0 todo)". */
export function inventoryLine(inventory: TestInventory): string {
  const counts = inventoryCounts(inventory);
  const files = counts.files === 0 ? '' : ` in ${counts.files} file${counts.files === 1 ? '' : 's'}`;
  return `${counts.total} test${counts.total === 1 ? '' : 's'}${files} (${counts.pass} pass, ${counts.fail} fail, ${counts.skip} skip, ${counts.todo} todo)`;
}

/** Why a run took a fresh copy although a cache folder was set (`run.started.workspace.cache`). */
const CACHE_NOT_USED: Readonly<Record<string, string>> = {
  busy: ' (cache in use by another run)',
  refused: " (cache folder refused: another user's, or writable by others)",
};

/** How a run's snapshot and check copy were had (runs recorded before this was recorded say nothing). */
export function snapshotHow(workspace: NonNullable<StartedData['workspace']>): string {
  const hashed = workspace.hashed === undefined ? '' : `, ${workspace.hashed} hashed`;
  const copy =
    workspace.copy === undefined
      ? ''
      : workspace.copy === 'reused'
        ? `, copy reused (${workspace.restored ?? 0} path${workspace.restored === 1 ? '' : 's'} restored)`
        : workspace.copy === 'rebuilt'
          ? ', cached copy rebuilt'
          : `, fresh copy${CACHE_NOT_USED[workspace.cache ?? ''] ?? ''}${workspace.cloned === undefined ? '' : `, ${workspace.cloned} large file${workspace.cloned === 1 ? '' : 's'} cloned`}`;
  return `${hashed}${copy}`;
}

/** The one-line JSON summary of a finished run that `--json` prints. */
export function runSummary(result: RunResult): Record<string, unknown> {
  const gone = allowedMissing(result.findings);
  return {
    runId: result.runId,
    mission: result.mission,
    outcome: result.outcome,
    verification: result.verification,
    stopReason: result.stopReason,
    attempts: result.attempts,
    ...(spentWords(result.counters) === undefined
      ? {}
      : {
          spent: { inputTokens: result.counters.inputTokens, outputTokens: result.counters.outputTokens, costUsd: result.counters.costUsd },
        }),
    ...(result.workspaceChanged === undefined ? {} : { workspaceChanged: result.workspaceChanged.length }),
    ...(gone.length === 0 ? {} : { allowedMissing: gone }),
  };
}

/** Left-aligned text table with a header row. */
export function table(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const widths = header.map((cell, index) => Math.max(cell.length, ...rows.map((row) => (row[index] ?? '').length)));
  const line = (row: readonly string[]): string =>
    row
      .map((cell, index) => cell.padEnd(widths[index] ?? 0))
      .join('  ')
      .trimEnd();
  return [line(header), line(widths.map((width) => '-'.repeat(width))), ...rows.map(line)].join('\n');
}

/**
 * A readable account of one run for people. The detail, findings and file names carry agent text, and
 * the ids mission text: each is passed through `clean`, so none can add a line or act on the terminal.
 */
export function describeRun(result: RunResult, evidence: string): string {
  const spent = spentWords(result.counters);
  const rows: string[][] = [
    ['run', clean(result.runId)],
    ['mission', clean(result.mission)],
    ['outcome', result.outcome],
    ['verification', result.verification],
    ['stop reason', clean(`${result.stopReason}${result.guard === undefined ? '' : ` (guard ${result.guard})`}`)],
    ['detail', clean(result.detail.split('\n')[0] ?? '')],
    ['attempts', String(result.attempts)],
    ...(spent === undefined ? [] : [['spent', spent]]),
    ['changed', clean(result.candidate.footprint.join(', ')) || '(nothing)'],
    ['evidence', clean(evidence)],
  ];
  if (result.shadow !== undefined) {
    // The held-out checks' verdict on the candidate the run stopped on: what the loop did not see.
    const failed = result.shadow.findings.filter((item) => item.status !== 'pass').map((item) => clean(item.check));
    rows.splice(4, 0, [
      'shadow',
      `${result.shadow.verdict}${failed.length === 0 ? '' : ` (${[...new Set(failed)].join(', ')})`} — held-out checks, not seen by the loop`,
    ]);
  }
  const gone = allowedMissing(result.findings);
  if (gone.length > 0) {
    // A red line that passed only because it shrank as the mission allowed: the run is at most sampled.
    const shown = gone.slice(0, 5).map(clean).join(', ');
    rows.push([
      'red line',
      `${gone.length} baseline test${gone.length === 1 ? '' : 's'} went missing as allowMissing allows: ${shown}${gone.length > 5 ? `, … ${gone.length - 5} more` : ''}`,
    ]);
  }
  const live = result.workspaceChanged ?? [];
  if (live.length > 0) {
    const shown = live.slice(0, 5).map(clean).join(', ');
    rows.push([
      'workspace',
      `changed during the run (not seen by the checks): ${shown}${live.length > 5 ? `, … ${live.length - 5} more` : ''}`,
    ]);
  }
  const last = lastFindings(result.findings);
  return [table(['', ''], rows).split('\n').slice(2).join('\n'), ...(last.length === 0 ? [] : ['', 'last findings:', ...last])].join('\n');
}

/** The failing findings of a run's last attempt, one line each, the same line once with how often it came (at most 10 lines). */
export function lastFindings(findings: readonly Finding[]): string[] {
  const counts = new Map<string, number>();
  for (const item of findings.filter(({ status }) => status === 'fail' || status === 'error')) {
    const line = findingLine(item);
    counts.set(line, (counts.get(line) ?? 0) + 1);
  }
  const distinct = [...counts];
  return [
    ...distinct.slice(0, 10).map(([line, times]) => `  ${line}${times === 1 ? '' : ` (×${times})`}`),
    ...(distinct.length > 10 ? [`  … and ${distinct.length - 10} more in the ledger`] : []),
  ];
}

/** How much of a finding's message its summary line shows. */
const GIST_CHARS = 160;

/**
 * A failing finding in one line: its check, the test it names (`tests › adds zero`), and the gist of its
 * message — the first line, and when that line only announces what follows ("Expected values to be
 * strictly equal:"), the lines that say it ("1 !== 2"), so that failures of several tests read apart.
 */
export function findingLine(item: Finding): string {
  const test = item.location?.test === undefined ? '' : ` › ${item.location.test}`;
  const [first = '', ...rest] = item.message
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '');
  let gist = first;
  for (const line of rest) {
    if (!gist.endsWith(':') || gist.length >= GIST_CHARS) break;
    gist = `${gist} ${line}`;
  }
  const cut = gist.length > GIST_CHARS ? `${gist.slice(0, GIST_CHARS - 1)}…` : gist;
  return `${item.status.padEnd(5)} ${clean(item.check + test)}: ${clean(cut)}`;
}
