import type { Command } from 'commander';
import { positive } from './arguments.js';
import type { Output } from './run-command.js';
import type { JudgeCalibration, NoiseRow } from '../study/judge-noise/index.js';
import { table } from './format.js';
import { clean, jsonLine } from './terminal-text.js';

// The mission loader, the checks, the ledger and the judges are imported when the command runs.

/** `redline judge calibrate` options as commander parses them. */
export interface CalibrateCommandOptions {
  readonly repeats?: number;
  readonly candidates?: number;
  readonly check?: string;
  readonly taskType?: string;
  readonly ledger?: string;
  readonly json?: boolean;
}

const DEFAULT_REPEATS = 5;
const DEFAULT_CANDIDATES = 20;

const fixed = (value: number | undefined): string => (value === undefined ? '—' : value.toFixed(4));

function noiseTable({ all, byTaskType, level }: JudgeCalibration): string {
  const line = (row: NoiseRow): string[] => [
    clean(row.taskType),
    String(row.candidates),
    String(row.scores),
    String(row.errors),
    String(row.degreesOfFreedom),
    fixed(row.sigma),
    row.interval === undefined ? '—' : `[${fixed(row.interval[0])}, ${fixed(row.interval[1])}]`,
  ];
  return table(
    ['task type', 'candidates', 'scores', 'errors', 'df', 'σ', `${Math.round(level * 100)}% interval`],
    [...byTaskType.map(line), ...(byTaskType.length > 1 ? [line(all)] : [])],
  );
}

/**
 * `redline judge calibrate MISSION`: scores the ledger's most recent recorded candidates of the mission
 * (or of a task type) `--repeats` times with each of the mission's score judges and prints σ per task type.
 * Exit 0 when σ was estimated for every judge, 1 when a judge gave too few scores, 2 for a usage error.
 */
export async function calibrateCommand(file: string, options: CalibrateCommandOptions, { print, progress }: Output): Promise<number> {
  const repeats = options.repeats ?? DEFAULT_REPEATS;
  if (repeats < 2) throw new TypeError(`Expected --repeats to be at least 2, got ${repeats}`);
  const limit = options.candidates ?? DEFAULT_CANDIDATES;
  const [{ loadMission }, { buildChecks }, { displayLocation, ledgerLocation, openLedger }, { calibrateJudge, recentCandidates }] =
    await Promise.all([
      import('../mission/load.js'),
      import('../roles/build-checks.js'),
      import('../ledger/open-ledger.js'),
      import('../study/judge-noise/index.js'),
    ]);
  const mission = await loadMission(file);
  const scoreChecks = mission.checks
    .map((spec, index) => ({ spec, index }))
    .filter(({ spec }) => spec.kind === 'score' && (options.check === undefined || spec.name === options.check));
  if (scoreChecks.length === 0)
    throw new TypeError(
      options.check === undefined
        ? `Expected a mission with a score check, got none in ${mission.id}`
        : `Expected --check to name a score check of ${mission.id}, got ${JSON.stringify(options.check)}`,
    );
  const checks = await buildChecks(mission);
  const location = ledgerLocation(options.ledger, mission.baseDir);
  const name = displayLocation(location);
  const ledger = await openLedger(location, { readOnly: true });
  let results: JudgeCalibration[];
  let count: number;
  try {
    const filter = options.taskType === undefined ? { missionId: mission.id } : { taskType: options.taskType };
    const candidates = await recentCandidates(ledger, { filter, limit });
    count = candidates.length;
    const of = options.taskType === undefined ? `mission ${mission.id}` : `task type ${options.taskType}`;
    if (count === 0) throw new TypeError(clean(`Expected recorded candidates of ${of} in ${name}, got none`));
    progress(clean(`scoring ${count} recorded candidate(s) of ${of} ${repeats} times each with ${scoreChecks.length} judge(s)`));
    results = [];
    for (const { index } of scoreChecks) {
      const check = checks[index] as (typeof checks)[number];
      results.push(
        await calibrateJudge({
          check,
          candidates,
          repeats,
          onCandidate: ({ done, total }) => progress(clean(`  ${check.name}: ${done}/${total} candidates`)),
        }),
      );
    }
  } finally {
    await ledger.close();
  }
  const estimated = results.every((result) => result.all.sigma !== undefined);
  if (options.json === true) {
    for (const result of results) print(jsonLine({ mission: mission.id, ledger: name, ...result }));
    return estimated ? 0 : 1;
  }
  for (const result of results) {
    print(clean(`judge noise of ${result.check} (mission ${mission.id}): ${count} candidate(s) from ${name}, ${repeats} scores each`));
    print(noiseTable(result));
    const { noise, noiseUpper, errors } = result.all;
    if (noise === undefined) print(`σ cannot be estimated: no candidate got two scores (${errors} scoring call(s) failed)`);
    else
      print(
        `  stopPolicy: { guards: [{ noiseAware: { bar: <bar>, confidence: <confidence>, noise: ${noise} } }] }   (cautious, the interval's upper end: noise: ${noiseUpper})`,
      );
    print('');
  }
  return estimated ? 0 : 1;
}

/** Adds `judge calibrate` to the CLI. */
export function addJudgeCommand({
  cli,
  done,
  output,
  ledgerHelp,
}: {
  cli: Command;
  done: (code: number) => void;
  output: Output;
  ledgerHelp: string;
}): void {
  cli
    .command('judge')
    .description("Measure the mission's judges.")
    .command('calibrate')
    .description(
      "Live judge noise: score the same recorded candidates N times with the mission's score judge and print σ (with a 95% interval) per task type, in the form the noiseAware guard takes.",
    )
    .argument('<mission>', 'mission file (.json, .yaml, .yml) with a score check')
    .option('--repeats <n>', `scores per candidate, at least 2 (default ${DEFAULT_REPEATS})`, positive)
    .option('--candidates <n>', `the most recent distinct recorded candidates to score (default ${DEFAULT_CANDIDATES})`, positive)
    .option('--check <name>', 'only this score check (default: every score check of the mission)')
    .option('--task-type <type>', "candidates of every run of this task type instead of the mission's runs")
    .option('--ledger <location>', `${ledgerHelp.replace('.redline/redline.db', '.redline/redline.db next to the mission')}`)
    .option('--json', 'one JSON line per score check: {mission, ledger, check, repeats, level, all, byTaskType}')
    .addHelpText(
      'after',
      "\nThe ledger is only read. Each candidate goes to the judge as it was recorded (files and value, with its run's goal), not in a\ncopy of the workspace. σ is the pooled spread of each candidate's scores; the interval is chi-square. Scores clipped at 0 or 1\nspread less, so σ is low for candidates the judge scores near the ends.\nExit codes: 0 σ estimated for every judge, 1 a judge gave too few scores, 2 usage, mission-file or ledger error.",
    )
    .action(async (file: string, options: CalibrateCommandOptions) => done(await calibrateCommand(file, options, output)));
}
