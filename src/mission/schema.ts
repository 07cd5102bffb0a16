import { z } from 'zod';
import { guardSpecSchema } from '../guards/spec.js';
import { priceTableSchema } from '../metering/prices.js';
import { durationProblem, parseDuration } from './duration.js';
import { describeValue, toMissionIssues } from './issues.js';
import { scopeGlobProblem } from './scope-glob.js';

const duration = z
  // A number that is not finite (`1e400`, YAML's `.inf`) fails the number branch: the union names the field's rule.
  .union([z.number(), z.string()], { error: (issue) => durationProblem(issue.input) })
  .transform((value, ctx) => {
    const problem = durationProblem(value);
    if (problem !== undefined) {
      ctx.addIssue({ code: 'custom', message: problem });
      return z.NEVER;
    }
    return parseDuration(value) as number;
  })
  .meta({ description: 'Milliseconds, or a string such as "500ms", "30s", "5m", "1h"; at most 365 days ("8760h").' });

/** A scope glob: picomatch syntax, relative to the workspace, able to match a candidate path. */
const scopeGlob = z
  .string()
  .min(1, { abort: true })
  .superRefine((glob, ctx) => {
    const problem = scopeGlobProblem(glob);
    if (problem !== undefined) ctx.addIssue({ code: 'custom', message: problem });
  })
  .meta({
    description:
      'A path glob relative to the workspace, e.g. "src/**"; absolute paths, ".." segments and empty classes ("[]") are refused.',
  });

/** A regular expression source, matched globally and case-insensitively. */
const stripPattern = z
  .string()
  .min(1, { abort: true })
  .superRefine((pattern, ctx) => {
    try {
      // As `stripRegExp` (core/strip-thinking.ts) compiles it.
      new RegExp(pattern, 'gi');
    } catch (error) {
      ctx.addIssue({ code: 'custom', message: `not a regular expression: ${(error as Error).message}` });
    }
  })
  .meta({
    description:
      'A JavaScript regular expression, matched globally and case-insensitively, e.g. "<think>[\\s\\S]*?</think>"; what it matches is removed.',
  });

/** A command as an argv array, or a string run by `/bin/sh -c`. */
/** The agent presets (src/proposers/agent-presets/presets.ts, which test/mission checks against this list). */
export const AGENT_PRESET_NAMES = ['codex', 'claude', 'qwen', 'gemini'] as const;

const command = z.union([z.string().min(1), z.array(z.string()).min(1)]);

const checkBase = {
  name: z
    .string()
    .min(1)
    .regex(/^[A-Za-z0-9._-]+$/, 'letters, digits, ".", "_" and "-" only'),
  stage: z.enum(['fast', 'promotion']).default('fast'),
  required: z.boolean().default(true),
  timeout: duration.default(60_000),
  /** Bytes of stdout/stderr kept per process; more is an error finding. */
  outputCap: z.number().int().positive().default(1_048_576),
  /**
   * A held-out oracle: run once at the seal on the candidate the loop stopped on (the baseline when there is
   * none) and recorded in the seal, never seen by the loop, the judge or acceptance.
   */
  shadow: z.boolean().optional(),
};

/**
 * The snapshot or candidate paths a program check itself rewrites: changes to them while it runs do not
 * void its result (`check.inputs_changed`). Files it creates are never inputs and need no entry.
 */
const outputs = z.array(scopeGlob).optional().meta({
  description:
    "Globs, relative to the check's copy, of snapshot or candidate paths the check itself rewrites (a tracked report, a snapshot file its tests update): a change to them while it runs does not void its result. Files the check creates need no entry.",
});

const commandCheck = z
  .object({ ...checkBase, kind: z.literal('command'), command, outputs, tier: z.enum(['format', 'demand']).default('format') })
  .strict();

const testRunnerCheck = z
  .object({
    ...checkBase,
    kind: z.literal('test-runner'),
    command,
    outputs,
    format: z.enum(['junit', 'tap', 'node-spec']),
    reportFile: z.string().optional().meta({
      description:
        'Where the report is read: "$REDLINE_REPORT" for the fresh path outside the check\'s copy that the command gets in that environment variable, or a path relative to the copy (removed before the command runs); the command\'s stdout when absent.',
    }),
    allowMissing: z.array(z.string().min(1)).optional().meta({
      description:
        'Baseline test cases that may go missing or be skipped, by id ("suite > name", prefixed by "file > " when the report declares one): "*" stands for any run of characters, "?" for one, "\\" makes the next literal. A check that passes only by them caps its run at sampled.',
    }),
    tier: z.literal('demand').default('demand'),
  })
  .strict();

const expectedOutputCheck = z
  .object({
    ...checkBase,
    kind: z.literal('expected-output'),
    command,
    outputs,
    expected: z.string(),
    /** `exact` compares bytes; `trimmed` ignores leading/trailing whitespace and line-ending style. */
    compare: z.enum(['exact', 'trimmed']).default('trimmed'),
    tier: z.literal('demand').default('demand'),
  })
  .strict();

const jsonSchemaCheck = z
  .object({
    ...checkBase,
    kind: z.literal('json-schema'),
    /** The JSON file to validate, relative to the candidate copy; the candidate's value when absent. */
    file: z.string().optional(),
    schema: z.union([z.record(z.string(), z.unknown()), z.string()]),
    tier: z.literal('format').default('format'),
  })
  .strict();

/** A model score judge through an OpenAI-compatible endpoint. */
const scoreModel = z.object({ baseURL: z.url(), model: z.string(), apiKeyEnv: z.string().optional(), rubric: z.string() }).strict();

/** One score source of `minOf`: a judge program or a model, as on the score check itself. */
const scoreSource = z.union([z.object({ command }).strict(), z.object({ model: scoreModel }).strict()]);

const scoreCheck = z
  .object({
    ...checkBase,
    kind: z.literal('score'),
    /** A judge program: gets the candidate on stdin as JSON, prints `{"score":0..1,"findings":[…]}`. */
    command: command.optional(),
    /** A model judge through an OpenAI-compatible endpoint. */
    model: scoreModel.optional(),
    /** Two score sources, combined by `minOfTwo`: the stricter score counts, with the findings of both. */
    minOf: z.tuple([scoreSource, scoreSource]).optional(),
    /** Score at or above which the check passes; below is a `fail` finding. */
    pass: z.number().min(0).max(1).default(0.8),
    tier: z.literal('semantic').default('semantic'),
  })
  .strict();

export const checkSpecSchema = z.discriminatedUnion('kind', [
  commandCheck,
  testRunnerCheck,
  expectedOutputCheck,
  jsonSchemaCheck,
  scoreCheck,
]);

export const proposerSpecSchema = z.discriminatedUnion('kind', [
  z
    .object({
      kind: z.literal('command'),
      command,
      timeout: duration.optional(),
      outputCap: z.number().int().positive().default(4_194_304),
      /** Whether the program reports `usage.costUsd`; a cost budget needs it. */
      reportsCost: z.boolean().default(false),
      /** Whether the program reports token usage; a token budget needs it. */
      reportsTokens: z.boolean().default(false),
    })
    .strict(),
  z
    .object({
      kind: z.literal('agent'),
      /** A program that edits files in place (a CLI coding agent), run in a private copy of snapshot + candidate. */
      command: command.optional(),
      /** Instead of `command`: an agent preset (docs/agents.md#presets-codex-cli-claude-code-qwen-code-gemini-cli), the CLI with its tested command line. */
      preset: z.enum(AGENT_PRESET_NAMES).optional(),
      /** With `preset`: the agent's model. */
      model: z.string().min(1).optional(),
      /** With `preset`: the model endpoint's base URL, as the CLI's SDK takes it. */
      baseUrl: z.url({ protocol: /^https?$/ }).optional(),
      /** With `preset`: the variable holding the API key, when it is not the one the CLI reads. */
      apiKeyEnv: z
        .string()
        .regex(/^[A-Za-z_][A-Za-z0-9_]*$/)
        .optional(),
      /** With `preset`: more arguments for the CLI (one naming an option the preset sets replaces the preset's). */
      args: z.array(z.string()).optional(),
      timeout: duration.optional(),
      /** Bytes of stdout/stderr kept; more is a `proposer.output_cap` error. */
      outputCap: z.number().int().positive().default(4_194_304),
      /** Bytes of changed file content one attempt may propose; more is a `proposer.output_cap` error. */
      maxChangeBytes: z.number().int().positive().default(16_777_216),
      reportsCost: z.boolean().default(false),
      reportsTokens: z.boolean().default(false),
      /**
       * Run the agent's model calls through a metering endpoint standing in for `upstream`, which counts, prices
       * and caps them by the run's budgets (docs/metering.md); `prices` (a table, or a JSON/YAML file relative to
       * the mission file) goes over the default prices.
       */
      meter: z
        .object({
          upstream: z.url({ protocol: /^https?$/ }),
          prices: z.union([priceTableSchema, z.string().min(1)]).optional(),
        })
        .strict()
        .optional(),
    })
    .strict()
    .superRefine((spec, context) => {
      if ((spec.command === undefined) === (spec.preset === undefined))
        context.addIssue({ code: 'custom', message: 'an agent proposer names exactly one of command or preset', path: ['command'] });
      if (spec.preset === undefined)
        for (const key of ['model', 'baseUrl', 'apiKeyEnv', 'args'] as const)
          if (spec[key] !== undefined) context.addIssue({ code: 'custom', message: `${key} goes with a preset`, path: [key] });
      if (spec.preset !== undefined && spec.baseUrl !== undefined && spec.meter !== undefined)
        context.addIssue({
          code: 'custom',
          message: 'a preset takes one of baseUrl or meter (the meter stands in for the base URL)',
          path: ['baseUrl'],
        });
    }),
  z
    .object({
      kind: z.literal('replay'),
      /** JSON file (relative to the mission file) holding an array of recorded proposer outputs. */
      file: z.string(),
    })
    .strict(),
  z
    .object({
      kind: z.literal('model'),
      baseURL: z.url(),
      model: z.string(),
      apiKeyEnv: z.string().default('OPENAI_API_KEY'),
      /** USD per million tokens; a cost budget needs it. */
      price: z.object({ input: z.number().nonnegative(), output: z.number().nonnegative() }).strict().optional(),
      maxOutputTokens: z.number().int().positive().optional(),
    })
    .strict(),
]);

/** A human judge's wait and polling, and what a rejection does. */
const humanJudge = z
  .object({
    kind: z.literal('human'),
    /** How long the run waits for a verdict on an attempt; with none by then the run blocks (`human_timeout`). */
    timeout: duration.default(3_600_000),
    /** How often the queue is asked for the verdict. */
    pollInterval: duration.default(5_000),
    /** What a rejection does: `retry` (another attempt, within the budgets) or `fail`. */
    onReject: z.enum(['retry', 'fail']).default('retry'),
  })
  .strict();

const judgeObject = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('routing-table') }).strict(),
  z
    .object({
      kind: z.literal('model'),
      baseURL: z.url(),
      model: z.string(),
      apiKeyEnv: z.string().default('OPENAI_API_KEY'),
      /** Limit of one decision, retries included; none when absent. */
      timeout: duration.optional(),
    })
    .strict(),
  z
    .object({
      kind: z.literal('command'),
      /** Gets the evidence as JSON on stdin, prints a decision as JSON on stdout. */
      command,
      timeout: duration.default(60_000),
      /** Bytes of stdout/stderr kept; more is a failed judge. */
      outputCap: z.number().int().positive().default(1_048_576),
    })
    .strict(),
  humanJudge,
]);

/** What is wrong with a judge: the first problem of the form its `kind` names, or what the field takes. */
function judgeProblem(input: unknown): string {
  const parsed =
    typeof input === 'object' && input !== null && !Array.isArray(input) ? judgeObject.safeParse(input, { reportInput: true }) : undefined;
  const first = parsed?.error === undefined ? undefined : toMissionIssues(parsed.error.issues)[0];
  if (first !== undefined) return `${first.path === '(root)' ? 'judge' : `judge.${first.path}`}: ${first.message}`;
  return `Expected "routing-table", "human" or {kind: "routing-table" | "model" | "command" | "human", …}, got ${describeValue(input)}`;
}

/**
 * Who chooses each transition: the routing table (the default), a model, a program, or a person through the
 * review queue. `"routing-table"` and `"human"` are short for `{kind: …}` with the defaults.
 */
export const judgeSpecSchema = z.union([z.enum(['routing-table', 'human']), judgeObject], { error: (issue) => judgeProblem(issue.input) });

export const budgetsSchema = z
  .object({
    maxAttempts: z.number().int().positive().default(5),
    maxTokens: z.number().int().positive().optional(),
    maxWallClock: duration.optional(),
    maxCostUsd: z.number().positive().optional(),
  })
  .strict();

export const missionSchema = z
  .object({
    $schema: z.string().optional(),
    id: z
      .string()
      .min(1)
      .regex(/^[A-Za-z0-9._-]+$/, 'letters, digits, ".", "_" and "-" only'),
    goal: z.string().min(1),
    taskType: z.string().min(1).default('default'),
    priority: z.number().int().default(0),
    /** Directory the candidates modify, relative to the mission file. Missions without one propose values. */
    workspace: z.string().optional(),
    /**
     * Path globs left out of the run's snapshot and copies (on top of `.git` and `.redline`, always left
     * out); a matching directory is left out whole. `node_modules` is part of the snapshot unless listed.
     */
    ignore: z.array(z.string().min(1)).default([]),
    /**
     * Run proposer programs and checks in an OS sandbox: `bwrap` (bubblewrap) makes only their own copy
     * writable, hides the network (unless `network` allows it) and ends every descendant with them.
     */
    sandbox: z
      .union([
        z.literal('none'),
        z.literal('bwrap'),
        z.object({ kind: z.literal('bwrap'), network: z.enum(['none', 'proposer', 'all']).default('none') }).strict(),
      ])
      .default('none'),
    /** Path globs a candidate may touch, relative to the workspace; one that can never match a path in it is an error. */
    scope: z.array(scopeGlob).default(['**']),
    budgets: budgetsSchema.default({ maxAttempts: 5 }),
    checks: z.array(checkSpecSchema).default([]),
    declaredOutputs: z.array(z.string().min(1)).default([]),
    approvals: z.array(z.string().min(1)).default([]),
    stopPolicy: z
      .object({
        guards: z.array(guardSpecSchema).optional(),
        /** What a rejected judge decision does to the run. */
        onRejectedDecision: z.enum(['fail', 'block']).default('fail'),
      })
      .strict()
      .default({ onRejectedDecision: 'fail' }),
    progressWindow: z.number().int().min(2).default(3),
    /** What the brief of a blocked or unverified run does to the final output a reviewer sees. */
    brief: z
      .object({
        /**
         * Thinking-token leakage stripped from the final output (files and value) in the brief, and recorded
         * as stripped; the candidate itself is sealed as proposed. Replaces the default list; `[]` strips nothing.
         */
        stripPatterns: z.array(stripPattern),
      })
      .strict()
      .optional(),
    proposer: proposerSpecSchema.optional(),
    /** Who chooses each transition; the routing table when absent. */
    judge: judgeSpecSchema.optional(),
  })
  .strict()
  .superRefine((mission, ctx) => {
    const names = new Set<string>();
    mission.checks.forEach((check, index) => {
      if (names.has(check.name)) {
        ctx.addIssue({
          code: 'custom',
          path: ['checks', index, 'name'],
          message: `Expected unique check names, got "${check.name}" twice`,
        });
      }
      names.add(check.name);
      if (check.kind === 'score' && [check.command, check.model, check.minOf].filter((source) => source !== undefined).length !== 1) {
        ctx.addIssue({
          code: 'custom',
          path: ['checks', index],
          message: 'Expected exactly one of "command", "model" or "minOf" on a score check',
        });
      }
    });
  });

/** A mission as written in a file (before defaults). */
export type MissionInput = z.input<typeof missionSchema>;
/** A validated mission with every default filled in. */
export type MissionSpec = z.output<typeof missionSchema>;
export type CheckSpec = z.output<typeof checkSpecSchema>;
export type ProposerSpec = z.output<typeof proposerSpecSchema>;
export type JudgeSpec = z.output<typeof judgeSpecSchema>;
