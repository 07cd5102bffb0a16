import type { ReachRow, StopQualityReport } from '../analysis/stop-quality.js';
import { stopQuality } from '../analysis/stop-quality.js';
import { spendReport } from '../analysis/spend.js';
import { usdWords } from '../core/model-call.js';
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

/** What a report command is asked: the runs it covers, and how it answers. */
interface ReportOptions {
  readonly taskType?: string;
  readonly since?: string;
  readonly json?: boolean;
  readonly ledger?: string;
}

/** The runs `--task-type` and `--since` name, as a run filter. */
function runFilter({ taskType, since }: ReportOptions): { taskType?: string; since?: number } {
  const after = parseSince(since);
  return { ...(taskType === undefined ? {} : { taskType }), ...(after === undefined ? {} : { since: after }) };
}

/** `… in LEDGER of task type T since DATE`: which runs a report covers. */
const covered = (name: string, { taskType, since }: ReportOptions): string =>
  `in ${name}${taskType === undefined ? '' : ` of task type ${taskType}`}${since === undefined ? '' : ` since ${since}`}`;

/** `redline report stop-quality`: observed vs true reach per stop reason and per policy, and the judge's noise. */
export async function stopQualityCommand(options: ReportOptions, { print }: Output): Promise<number> {
  const filter = runFilter(options);
  return withLedger(options.ledger, async (open, name) => {
    const report = await stopQuality(open, filter);
    if (options.json === true) {
      print(jsonLine(report));
      return 0;
    }
    const { all } = report;
    print(clean(`${all.runs} sealed run(s) ${covered(name, options)}`));
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

/** `redline report spend`: each sealed run's tokens, dollars and metered model calls, and their sum. */
export async function spendCommand(options: ReportOptions, { print }: Output): Promise<number> {
  const filter = runFilter(options);
  return withLedger(options.ledger, async (open, name) => {
    const report = await spendReport(open, filter);
    if (options.json === true) {
      print(jsonLine(report));
      return 0;
    }
    const { total } = report;
    const count = (value: number): string => value.toLocaleString('en-US');
    print(
      clean(
        `${total.runs} sealed run(s) ${covered(name, options)}: ${count(total.inputTokens + total.outputTokens)} tokens (${count(total.inputTokens)} in, ${count(total.outputTokens)} out), ${usdWords(total.costUsd)}, ${count(total.modelCalls)} metered model call(s)`,
      ),
    );
    if (report.runs.length === 0) return 0;
    print('');
    print(
      table(
        ['run', 'mission', 'ended', 'attempts', 'tokens in', 'tokens out', 'cost', 'model calls'],
        report.runs.map((row) => [
          clean(row.runId),
          clean(row.missionId),
          clean(`${row.outcome} / ${row.stopReason}`),
          String(row.attempts),
          count(row.inputTokens),
          count(row.outputTokens),
          usdWords(row.costUsd),
          String(row.modelCalls),
        ]),
      ),
    );
    return 0;
  });
}
