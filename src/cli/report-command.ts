import type { ReachRow, StopQualityReport } from '../analysis/stop-quality.js';
import { stopQuality } from '../analysis/stop-quality.js';
import { parseSince } from './arguments.js';
import { table } from './format.js';
import { withLedger } from './ledger-command.js';
import type { Output } from './run-command.js';
import { clean, jsonLine } from './terminal-text.js';

const pct = (rate: number | null): string => (rate === null ? '—' : `${(100 * rate).toFixed(1)}%`);

/** One table of reach rows; keys (stop reasons, guard names) come from the ledger and are cleaned. */
function reachTable(title: string, rows: readonly ReachRow[]): string {
  return table(
    [title, 'runs', 'observed reach', 'true reach', 'false stops', 'missed', 'shadow errors'],
    rows.map((row) => [
      clean(row.key),
      String(row.runs),
      `${row.observedReached}/${row.runs} (${pct(row.observedReach)})`,
      `${row.trueReached}/${row.judged} (${pct(row.trueReach)})`,
      String(row.falseReached),
      String(row.missedReached),
      String(row.shadowErrors),
    ]),
  );
}

/** What the noise estimate says, with σ in the form a mission's stop policy takes. */
function noiseLines({ noise }: StopQualityReport): string[] {
  if (noise.sigma === undefined || noise.noise === undefined)
    return ['judge noise: no candidate was scored more than once, so σ cannot be estimated (noiseAware takes noise: "estimate")'];
  return [
    `judge noise: σ ≈ ${noise.sigma.toFixed(4)} from ${noise.scores} scores of ${noise.candidates} candidate(s) scored more than once (${noise.degreesOfFreedom} degrees of freedom)`,
    `  stopPolicy: { guards: [{ noiseAware: { bar: <bar>, confidence: <confidence>, noise: ${noise.noise} } }] }`,
  ];
}

/** `redline report stop-quality`: observed vs true reach per stop reason and per policy, and the judge's noise. */
export async function stopQualityCommand(
  { taskType, since, json = false, ledger }: { taskType?: string; since?: string; json?: boolean; ledger?: string },
  { print }: Output,
): Promise<number> {
  const after = parseSince(since);
  return withLedger(ledger, async (open, name) => {
    const report = await stopQuality(open, {
      ...(taskType === undefined ? {} : { taskType }),
      ...(after === undefined ? {} : { since: after }),
    });
    if (json) {
      print(jsonLine(report));
      return 0;
    }
    const { all } = report;
    print(
      clean(
        `${all.runs} sealed run(s) in ${name}${taskType === undefined ? '' : ` of task type ${taskType}`}${since === undefined ? '' : ` since ${since}`}`,
      ),
    );
    print(`observed reach: ${all.observedReached}/${all.runs} (${pct(all.observedReach)}) — sealed complete or complete_noop`);
    print(
      `true reach: ${all.trueReached}/${all.judged} (${pct(all.trueReach)}) — the shadow checks passed on the candidate the loop stopped on, of the runs they judged; ${all.falseReached} false stop(s), ${all.missedReached} missed, ${all.shadowErrors} shadow error(s)`,
    );
    print('');
    print(reachTable('stop reason', report.byStopReason));
    print('');
    print(reachTable('policy', report.byPolicy));
    print('');
    for (const line of noiseLines(report)) print(line);
    return 0;
  });
}
