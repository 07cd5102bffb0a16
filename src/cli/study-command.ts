import path from 'node:path';
import { type Command } from 'commander';
import { integer, number, numbers } from './arguments.js';
import type { StopRulesStudyOptions, StudyProgress } from '../study/index.js';
import type { StudyOptionError } from '../study/study-option-error.js';
import { addHandoffCommand } from './handoff-command.js';
import type { Output } from './run-command.js';
import type { SelfJudgeCommandOptions } from './selfjudge-command.js';

export { handoffCommand, type HandoffCommandOptions } from './handoff-command.js';

// The simulators are imported when a study runs, so that the rest of the CLI starts without them.

/** `redline study stop-rules` options as commander parses them. */
export interface StopRulesCommandOptions {
  readonly sigma?: number[];
  readonly seeds?: number;
  readonly seed?: number;
  readonly tasksPerType?: number;
  readonly bar?: number;
  readonly cap?: number;
  readonly warmup?: number[];
  readonly confidence?: number[];
  /** A policy file (JSON/YAML, as `redline replay --policy` reads): its guard stacks run as extra strategies. */
  readonly policy?: string;
  readonly out?: string;
  readonly json?: boolean;
}

/** Where progress goes, and the clock that decides when to show it. */
export interface ProgressSink {
  readonly stream: { readonly isTTY?: boolean; write(text: string): unknown };
  /** Milliseconds, monotonic. @default performance.now */
  readonly now?: () => number;
  /** Show nothing until the work has run this long. @default 300 */
  readonly delayMs?: number;
}

const DEFAULT_OUT = 'study-out';

/** The CLI flag of each study option, for error messages. */
const FLAGS: Readonly<Record<string, string>> = {
  sigmas: '--sigma',
  seeds: '--seeds',
  seed: '--seed',
  tasksPerType: '--tasks-per-type',
  bar: '--bar',
  cap: '--cap',
  warmup: '--warmup',
  confidences: '--confidence',
  policies: '--policy',
  out: '--out',
};

/** A study's option error as the CLI's usage error (exit 2), named by its flag; anything else as it is. */
function usageError(error: unknown, flags: Readonly<Record<string, string>>, optionError: typeof StudyOptionError): unknown {
  if (!(error instanceof optionError)) return error;
  return new TypeError(`Expected ${flags[error.option] ?? error.option} to be ${error.expected}, got ${error.got}`, { cause: error });
}

/**
 * A one-line progress display on a TTY (`\r`-rewritten), shown only once the work has run `delayMs`;
 * nothing at all when the stream is not a terminal.
 */
export function progressLine({ stream, now = () => performance.now(), delayMs = 300 }: ProgressSink): {
  update: (progress: StudyProgress) => void;
  clear: () => void;
} {
  const started = now();
  let shown = false;
  return {
    update({ done, total }) {
      if (stream.isTTY !== true || now() - started < delayMs) return;
      shown = true;
      stream.write(`\rstop-rules study: ${done}/${total} cells (${Math.floor((100 * done) / total)}%)`);
    },
    clear() {
      if (shown) stream.write('\r\x1b[K');
    },
  };
}

/** `redline study stop-rules`: runs the study; prints Markdown (and writes the figures) or JSON. */
export async function stopRulesCommand(
  options: StopRulesCommandOptions,
  { print }: Output,
  sink: ProgressSink = { stream: process.stderr },
): Promise<number> {
  const { assertOutDir, renderMarkdown, runStopRulesStudy, StudyOptionError, writeFigures } = await import('../study/index.js');
  // A bad policy file is refused before the study runs, naming the file and what is wrong in it.
  const policies = options.policy === undefined ? undefined : await (await import('./policy-file.js')).loadPolicies(options.policy);
  const progress = progressLine(sink);
  const studyOptions: StopRulesStudyOptions = {
    sigmas: options.sigma,
    seeds: options.seeds,
    seed: options.seed,
    tasksPerType: options.tasksPerType,
    bar: options.bar,
    cap: options.cap,
    warmup: options.warmup,
    confidences: options.confidence,
    policies,
    onProgress: progress.update,
  };
  // Figures go to --out, or to the default directory for Markdown; a bad --out is refused before the study runs.
  const out = options.json === true ? options.out : (options.out ?? DEFAULT_OUT);
  let study;
  let figures;
  try {
    if (out !== undefined) await assertOutDir(out);
    study = await runStopRulesStudy(studyOptions);
    figures = out === undefined ? [] : await writeFigures({ study, dir: out });
  } catch (error) {
    throw usageError(error, FLAGS, StudyOptionError);
  } finally {
    progress.clear();
  }
  if (options.json === true) {
    print(JSON.stringify(study));
    return 0;
  }
  print(
    renderMarkdown({ study, figures: figures.map(({ title, file }) => ({ title, path: path.join(out ?? DEFAULT_OUT, file) })) }).trimEnd(),
  );
  return 0;
}

/** Adds `study stop-rules`, `study handoff` and `study redline-vs-selfjudge` to the CLI. */
export function addStudyCommand({ cli, done, output }: { cli: Command; done: (code: number) => void; output: Output }): void {
  const study = cli.command('study').description('Simulators that measure stop policies.');
  study
    .command('stop-rules')
    .description(
      "Stop rules under judge noise (docs/stop-rules.md): every strategy is the library's own guards, on the same simulated tasks and noisy scores.",
    )
    .option('--sigma <list>', 'judge noise levels σ, comma-separated (default 0.02,0.05,0.1,0.15,0.2)', numbers)
    .option('--seeds <n>', 'seeds to repeat over; results are mean ± sd (default 10)', integer)
    .option('--seed <n>', 'first seed (default 1)', integer)
    .option('--tasks-per-type <n>', 'tasks of each of the three types; half train, half are tested (default 200)', integer)
    .option('--bar <score>', 'quality bar (default 0.8)', number)
    .option('--cap <n>', 'attempt cap of every rule (default 8)', integer)
    .option('--warmup <list>', "warm-up sizes of adaptive's cold-start curve (default 0,3,6,12,30,60,150,300)", numbers)
    .option(
      '--confidence <list>',
      'confidences of the noise-aware calibration sweep (default 0.5,0.6,0.7,0.75,0.8,…,0.99,0.995,0.999)',
      numbers,
    )
    .option(
      '--policy <file>',
      'JSON/YAML policy file, as replay reads it ({name, guards} or {policies: [{name, guards}, …]}): each guard stack runs as an extra strategy, after the attempt budget',
    )
    .option('--out <dir>', `directory for the SVG figures (default ${DEFAULT_OUT}; with --json, only when given)`)
    .option('--json', 'print the results as one JSON document instead of Markdown')
    .addHelpText(
      'after',
      "\nadaptive-cdv is CDV's adaptive rule as published, beside redline's adaptive (docs/stop-rules.md says which published findings reproduce).\nThe same options and seed give byte-identical output and figures. Exit code 2 for a bad option value or policy file.",
    )
    .action(async (options: StopRulesCommandOptions) => done(await stopRulesCommand(options, output)));
  addHandoffCommand({ study, done, output });
  study
    .command('redline-vs-selfjudge')
    .description(
      "Red line vs self-judge (docs/experiments.md): the same code tasks through the loop, stopping when the tests pass (A) or when the model says its code is done (B, tests as shadows); every trial is a sealed run. --protocol published sends the published script's own prompts.",
    )
    .option(
      '--task-set <name>',
      'published (the three published tasks, A and B) or boundary (seeded syntax vs logic errors, A only) (default published)',
    )
    .option(
      '--task-file <file>',
      'tasks as JSON {"tasks":[{"id","desc","test_stmt","expected"}]} (the published format), or a redline mission file',
    )
    .option(
      '--protocol <name>',
      "whose prompts the trials send: redline (redline's proposer prompt and --judge-prompt), published (the published script's Chinese prompts, parsing and test, byte for byte) or published-en (the same in English) (default redline)",
    )
    .option('--inject-tests', "with a published protocol: put each task's test statement and expected output in every proposer prompt")
    .option('--trials <n>', "trials per task and condition (default 3, the published article's)", integer)
    .option('--max-attempts <n>', "attempt cap of every trial (default 8, the published article's)", integer)
    .option('--steps <n>', "the published script's name for --max-attempts", integer)
    .option(
      '--judge-prompt <prompt>',
      "B's question under --protocol redline: yes-no, finish, or a template FILE with {task} and {code} (default yes-no)",
    )
    .option('--model <name>', 'the model (temperature 0) that proposes and, in B, judges itself, through an OpenAI-compatible endpoint')
    .option('--base-url <url>', 'OpenAI-compatible endpoint of --model, e.g. http://127.0.0.1:8080/v1')
    .option('--api-key-env <variable>', 'environment variable holding the API key (default OPENAI_API_KEY)')
    .option('--proposer <command>', 'proposer program speaking redline.proposer/1 instead of the model (B still asks --model)')
    .option('--agent <command>', 'agent that edits files in place instead of the model (B still asks --model)')
    .option(
      '--ledger <location>',
      'ledger the trials are recorded in: a SQLite file or a postgres:// URL (default: $REDLINE_LEDGER, else .redline/redline.db)',
    )
    .option('--out <dir>', `directory for redline-vs-selfjudge.svg (default ${DEFAULT_OUT}; with --json, only when given)`)
    .option('--json', 'print the results as one JSON document instead of Markdown')
    .addHelpText(
      'after',
      '\nUnder --protocol redline, B\'s proposer prompt says "Failing findings: None." (its tests are shadows); the published protocols give no such cue. docs/experiments.md says how the protocols differ.\nSelect a study\'s runs with the task type it prints: redline report stop-quality --task-type study-<id>.selfjudge. Exit code 2 for a bad option value.',
    )
    .action(async (options: SelfJudgeCommandOptions) =>
      done(await (await import('./selfjudge-command.js')).selfJudgeCommand(options, output)),
    );
}
