import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { Proposer } from '../proposers/proposer.js';
import type { Condition, JudgePromptName, SelfJudgeStudyOptions, StudyTask } from '../study/selfjudge/index.js';
import { ledgerLocation, openLedger, displayLocation } from '../ledger/open-ledger.js';
import type { Output } from './run-command.js';
import { jsonLine } from './terminal-text.js';

/** `redline study redline-vs-selfjudge` options as commander parses them. */
export interface SelfJudgeCommandOptions {
  readonly taskSet?: string;
  readonly taskFile?: string;
  readonly trials?: number;
  readonly maxAttempts?: number;
  /** The published script's name for the attempt cap. */
  readonly steps?: number;
  readonly protocol?: string;
  readonly injectTests?: boolean;
  readonly judgePrompt?: string;
  readonly model?: string;
  readonly baseUrl?: string;
  readonly apiKeyEnv?: string;
  readonly proposer?: string;
  readonly agent?: string;
  readonly ledger?: string;
  readonly out?: string;
  readonly json?: boolean;
}

const DEFAULT_OUT = 'study-out';

/** The CLI flag of each study option, for error messages. */
const FLAGS: Readonly<Record<string, string>> = {
  trials: '--trials',
  maxAttempts: '--max-attempts',
  taskFile: '--task-file',
  judgePrompt: '--judge-prompt',
  ask: '--model and --base-url',
  proposer: '--model, --proposer or --agent',
  protocol: '--protocol',
  injectTests: '--inject-tests',
  tasks: '--task-set or --task-file',
  out: '--out',
};

/** The tasks: a named set, a published-format task file, or a redline mission file. */
async function loadTasks(options: SelfJudgeCommandOptions): Promise<{ tasks: StudyTask[]; taskSet: string }> {
  const { TASK_SETS, parseTaskFile } = await import('../study/selfjudge/index.js');
  if (options.taskFile !== undefined && options.taskSet !== undefined)
    throw new TypeError('Expected one of --task-set or --task-file, got both');
  if (options.taskFile === undefined) {
    const name = options.taskSet ?? 'published';
    if (!(name in TASK_SETS)) throw new TypeError(`Expected --task-set to be published or boundary, got ${JSON.stringify(name)}`);
    return { tasks: TASK_SETS[name as keyof typeof TASK_SETS].map((task) => ({ kind: 'code', task })), taskSet: name };
  }
  const file = options.taskFile;
  const text = await readFile(file, 'utf8').catch((error: NodeJS.ErrnoException) => {
    throw new TypeError(`Expected --task-file to be a readable file, got ${JSON.stringify(file)} (${error.code ?? String(error)})`);
  });
  let data: unknown;
  if (path.extname(file).toLowerCase() === '.json') {
    try {
      data = JSON.parse(text);
    } catch (error) {
      throw new TypeError(`Expected --task-file to be valid JSON, got ${(error as Error).message}`, { cause: error });
    }
  }
  // A JSON object with `tasks` is the published format; anything else is read as a redline mission file.
  if (typeof data === 'object' && data !== null && 'tasks' in data) {
    return { tasks: parseTaskFile(data).map((task) => ({ kind: 'code', task })), taskSet: path.basename(file) };
  }
  const { loadMission } = await import('../mission/load.js');
  return { tasks: [{ kind: 'mission', mission: await loadMission(file) }], taskSet: path.basename(file) };
}

/** The judge prompt: a built-in name, else a template file holding `{task}` and `{code}`. */
async function judgePrompt(value: string | undefined): Promise<SelfJudgeStudyOptions['judgePrompt']> {
  if (value === undefined || value === 'yes-no' || value === 'finish') return (value ?? 'yes-no') as JudgePromptName;
  const template = await readFile(value, 'utf8').catch(() => {
    throw new TypeError(`Expected --judge-prompt to be yes-no, finish or a readable template file, got ${JSON.stringify(value)}`);
  });
  return { name: path.basename(value), template };
}

/** The protocol and the attempt cap (`--steps` or `--max-attempts`), refused when the flags contradict each other. */
function protocolParts(options: SelfJudgeCommandOptions): Pick<SelfJudgeStudyOptions, 'protocol' | 'injectTests' | 'maxAttempts'> {
  if (options.steps !== undefined && options.maxAttempts !== undefined)
    throw new TypeError('Expected one of --steps or --max-attempts, got both');
  const protocol = (options.protocol ?? 'redline') as NonNullable<SelfJudgeStudyOptions['protocol']>;
  if (protocol !== 'redline') {
    const [flag] =
      (
        [
          ['--judge-prompt', options.judgePrompt],
          ['--proposer', options.proposer],
          ['--agent', options.agent],
        ] as const
      ).find(([, value]) => value !== undefined) ?? [];
    if (flag !== undefined)
      throw new TypeError(`Expected no ${flag} under --protocol ${protocol} (it sends the script's own prompts), got one`);
  }
  const maxAttempts = options.steps ?? options.maxAttempts;
  return {
    protocol,
    ...(options.injectTests === true ? { injectTests: true } : {}),
    ...(maxAttempts === undefined ? {} : { maxAttempts }),
  };
}

/** The model (temperature 0), the proposer, and the self-judge's question from the flags. */
async function modelParts(options: SelfJudgeCommandOptions): Promise<Pick<SelfJudgeStudyOptions, 'proposer' | 'ask' | 'proposerName'>> {
  if (options.proposer !== undefined && options.agent !== undefined) throw new TypeError('Expected one of --proposer or --agent, got both');
  if (options.model !== undefined && options.baseUrl === undefined) throw new TypeError('Expected --base-url with --model, got none');
  let proposer: Proposer | undefined;
  let ask: SelfJudgeStudyOptions['ask'];
  if (options.model !== undefined && options.baseUrl !== undefined) {
    const [{ modelAsk, temperatureZeroModel }, { modelProposer }] = await Promise.all([
      import('../ai-sdk/model-ask.js'),
      import('../ai-sdk/model-proposer.js'),
    ]);
    const languageModel = temperatureZeroModel({
      baseURL: options.baseUrl,
      model: options.model,
      apiKey: process.env[options.apiKeyEnv ?? 'OPENAI_API_KEY'],
    });
    ask = modelAsk(languageModel);
    proposer = modelProposer({ languageModel });
  }
  if (options.proposer !== undefined) {
    const { commandProposer } = await import('../proposers/command-proposer.js');
    proposer = commandProposer({ command: options.proposer, cwd: process.cwd() });
  }
  if (options.agent !== undefined) {
    const { agentProposer } = await import('../proposers/agent-proposer.js');
    proposer = agentProposer({ command: options.agent });
  }
  return { ...(proposer === undefined ? {} : { proposer, proposerName: proposer.name }), ...(ask === undefined ? {} : { ask }) };
}

/**
 * `redline study redline-vs-selfjudge`: runs the tasks under conditions A and B (the repair boundary: A only), every trial
 * a sealed run in the ledger; prints Markdown (and writes the figure) or JSON.
 */
export async function selfJudgeCommand(options: SelfJudgeCommandOptions, { print, progress }: Output): Promise<number> {
  const [{ assertOutDir }, { StudyOptionError }, study] = await Promise.all([
    import('../study/out-dir.js'),
    import('../study/study-option-error.js'),
    import('../study/selfjudge/index.js'),
  ]);
  for (const [flag, value] of [
    ['--trials', options.trials],
    ['--max-attempts', options.maxAttempts],
    ['--steps', options.steps],
  ] as const) {
    if (value !== undefined && value < 1) throw new TypeError(`Expected ${flag} to be a positive integer, got ${value}`);
  }
  const { tasks, taskSet } = await loadTasks(options);
  const conditions: Condition[] = taskSet === 'boundary' ? ['redline'] : ['redline', 'selfjudge'];
  const out = options.json === true ? options.out : (options.out ?? DEFAULT_OUT);
  const location = ledgerLocation(options.ledger, process.cwd());
  let result;
  let figure: string | undefined;
  try {
    if (out !== undefined) await assertOutDir(out);
    const protocol = protocolParts(options);
    const model = await modelParts(options);
    // Under a published protocol the model is asked the script's prompts directly: redline's model proposer stays out.
    const { proposer: _proposer, ...asked } = model;
    const parts = protocol.protocol === 'redline' ? model : asked;
    const prompt = protocol.protocol === 'redline' ? await judgePrompt(options.judgePrompt) : undefined;
    const ledger = await openLedger(location);
    try {
      result = await study.runSelfJudgeStudy({
        tasks,
        taskSet,
        conditions,
        ledger,
        ...parts,
        ...protocol,
        ...(prompt === undefined ? {} : { judgePrompt: prompt }),
        ...(options.trials === undefined ? {} : { trials: options.trials }),
        onProgress: ({ done, total }) => progress(`trial ${done}/${total}`),
      });
    } finally {
      await ledger.close();
    }
    figure = out === undefined ? undefined : await study.writeSelfJudgeFigure({ study: result, dir: out });
  } catch (error) {
    if (!(error instanceof StudyOptionError)) throw error;
    throw new TypeError(`Expected ${FLAGS[error.option] ?? error.option} to be ${error.expected}, got ${error.got}`, { cause: error });
  }
  if (options.json === true) {
    print(jsonLine(result));
    return 0;
  }
  print(study.renderSelfJudgeMarkdown(result, figure === undefined ? {} : { figure }).trimEnd());
  print(`\nRuns recorded in ${displayLocation(location)}.`);
  return 0;
}
