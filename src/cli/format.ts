import { spentWords } from '../core/model-call.js';
import { allowedMissing, inventoryCounts, type TestInventory } from '../core/test-inventory.js';
import type { RunResult } from '../loop/run-mission.js';
import { clean } from './terminal-text.js';

/** A test inventory in words: "797 tests in 23 files (796 pass, 1 fail, 0 skip, 0 todo)". */
export function inventoryLine(inventory: TestInventory): string {
  const counts = inventoryCounts(inventory);
  const files = counts.files === 0 ? '' : ` in ${counts.files} file${counts.files === 1 ? '' : 's'}`;
  return `${counts.total} test${counts.total === 1 ? '' : 's'}${files} (${counts.pass} pass, ${counts.fail} fail, ${counts.skip} skip, ${counts.todo} todo)`;
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
  const failing = result.findings.filter((item) => item.status === 'fail' || item.status === 'error');
  const lines = [table(['', ''], rows).split('\n').slice(2).join('\n')];
  if (failing.length > 0) {
    lines.push('', 'last findings:');
    for (const item of failing.slice(0, 10))
      lines.push(`  ${item.status.padEnd(5)} ${clean(item.check)}: ${clean(item.message.split('\n')[0] ?? '')}`);
    if (failing.length > 10) lines.push(`  … and ${failing.length - 10} more in the ledger`);
  }
  return lines.join('\n');
}
