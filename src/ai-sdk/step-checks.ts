import { finding, type Check } from '../core/check.js';
import type { Finding, Stage } from '../core/finding.js';
import { PROGRAM_CHECK_KINDS, programCheck, type ProgramCheckSpec } from '../checks/program-check.js';
import type { CheckSpec } from '../mission/schema.js';

/** What a function check says of a step: pass or not, optionally why. */
export type StepCheckResult = boolean | { readonly pass: boolean; readonly message?: string };

/** A check written as a function of the step; `signal` aborts when its timeout passes. */
export type StepCheckFunction<STEP> = (
  step: STEP,
  options: { readonly signal: AbortSignal },
) => StepCheckResult | PromiseLike<StepCheckResult>;

/** A function check with its name and tier. */
export interface StepFunctionCheck<STEP> {
  readonly name: string;
  readonly check: StepCheckFunction<STEP>;
  /** @default 'demand' */
  readonly tier?: 'format' | 'demand';
  /** @default 'fast' */
  readonly stage?: Stage;
  /** @default true */
  readonly required?: boolean;
  /** A check that has not answered by then gives an `error` finding (`check.timeout`). @default 60000 */
  readonly timeoutMs?: number;
}

/**
 * A check of the adapter: a program check as a mission file writes it (`command`, `test-runner`,
 * `expected-output`), a `Check` (e.g. `commandCheck(…)`), a function of the step (a demand red line named
 * after the function), or a {@link StepFunctionCheck}.
 */
export type StepCheckInput<STEP> = Check | StepCheckFunction<STEP> | StepFunctionCheck<STEP> | Record<string, unknown>;

/** A check of the adapter, ready to run on any step. */
export interface StepCheck<STEP> extends Pick<Check, 'name' | 'stage' | 'tier' | 'required'> {
  /** The check for one step (a function check closes over the step). */
  forStep(step: STEP): Check;
}

/** Whether an input is a mission-file check spec (it names a `kind`), to be validated with the mission. */
export const isCheckSpec = (input: unknown): input is Record<string, unknown> =>
  typeof input === 'object' && input !== null && 'kind' in input && typeof (input as { run?: unknown }).run !== 'function';

/** Characters of a function check's message a finding keeps (the message is the check's, maybe echoing agent output). */
const MESSAGE_CHARS = 4096;
const cut = (text: string): string => (text.length <= MESSAGE_CHARS ? text : `${text.slice(0, MESSAGE_CHARS)}… (${text.length} chars)`);
const describe = (value: unknown): string => (value === null ? 'null' : Array.isArray(value) ? 'an array' : typeof value);

function functionCheck<STEP>({
  name,
  check,
  tier = 'demand',
  stage = 'fast',
  required = true,
  timeoutMs = 60_000,
}: StepFunctionCheck<STEP>): StepCheck<STEP> {
  if (typeof name !== 'string' || name === '') throw new TypeError(`Expected a check name, got ${describe(name)}`);
  if (!Number.isFinite(timeoutMs) || timeoutMs <= 0)
    throw new TypeError(`Expected \`timeoutMs\` of check ${name} to be a positive number, got ${timeoutMs}`);
  const info = { name, stage, tier, required };
  return {
    ...info,
    forStep: (step) => ({
      ...info,
      async run(context): Promise<Finding[]> {
        // A timer that holds the process open: a check that never settles must end in a finding, not an exit.
        const timeout = new AbortController();
        const timer = setTimeout(() => timeout.abort(), timeoutMs);
        const signal = AbortSignal.any([context.signal, timeout.signal]);
        const stopped = new Promise<'stopped'>((resolve) => {
          if (signal.aborted) resolve('stopped');
          signal.addEventListener('abort', () => resolve('stopped'), { once: true });
        });
        // Called inside the chain, so that a check throwing at once also clears the timer (which else holds the
        // process open for `timeoutMs`) and reaches the caller as a rejection.
        const answered = Promise.resolve().then(() => check(step, { signal }));
        const result = await Promise.race([answered, stopped]).finally(() => clearTimeout(timer));
        if (result === 'stopped') return [finding(info, 'error', ['check.timeout'], `no answer within ${timeoutMs} ms`)];
        const answer = typeof result === 'boolean' ? { pass: result } : result;
        if (typeof answer !== 'object' || answer === null || typeof answer.pass !== 'boolean')
          return [finding(info, 'error', ['check.bad_result'], `Expected true, false or { pass, message }, got ${describe(result)}`)];
        const message = typeof answer.message === 'string' ? cut(answer.message) : undefined;
        if (answer.pass) return [finding(info, 'pass', [], message ?? 'passed')];
        return [finding(info, 'fail', ['check.failed'], message ?? 'did not pass')];
      },
    }),
  };
}

/**
 * The adapter's checks, in the order given. `specs` are the inputs that {@link isCheckSpec} picked, as the
 * mission schema validated them (same order).
 * @throws {TypeError} for an input that is none of {@link StepCheckInput}, or a spec of a kind that needs more than a program.
 */
export function stepChecks<STEP>(inputs: readonly StepCheckInput<STEP>[], specs: readonly CheckSpec[]): StepCheck<STEP>[] {
  let spec = 0;
  return inputs.map((input, index) => {
    if (typeof input === 'function') return functionCheck({ name: input.name === '' ? `check ${index + 1}` : input.name, check: input });
    if (isCheckSpec(input)) {
      const parsed = specs[spec++] as CheckSpec;
      if (!(PROGRAM_CHECK_KINDS as readonly string[]).includes(parsed.kind))
        throw new TypeError(`Expected checks[${index}] of kind ${PROGRAM_CHECK_KINDS.join(', ')}, got ${parsed.kind}`);
      const check = programCheck(parsed as ProgramCheckSpec);
      return { ...check, forStep: () => check };
    }
    if (typeof input === 'object' && input !== null && typeof (input as Check).run === 'function') {
      const check = input as Check;
      return { name: check.name, stage: check.stage, tier: check.tier, required: check.required, forStep: () => check };
    }
    if (typeof input === 'object' && input !== null && typeof (input as StepFunctionCheck<STEP>).check === 'function')
      return functionCheck(input as StepFunctionCheck<STEP>);
    throw new TypeError(
      `Expected checks[${index}] to be a check spec, a Check, a function or { name, check }, got ${input === null ? 'null' : typeof input}`,
    );
  });
}
