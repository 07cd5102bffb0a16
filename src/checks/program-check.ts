import type { Check } from '../core/check.js';
import type { CheckSpec } from '../mission/schema.js';
import { commandCheck } from './command-check.js';
import { expectedOutputCheck } from './expected-output-check.js';
import { testRunnerCheck } from './test-runner-check.js';

/** The mission-file check specs that run a program and read only its result: no file or model to load. */
export type ProgramCheckSpec = Extract<CheckSpec, { kind: 'command' | 'test-runner' | 'expected-output' }>;

/** The kinds of {@link ProgramCheckSpec}. */
export const PROGRAM_CHECK_KINDS: readonly ProgramCheckSpec['kind'][] = ['command', 'test-runner', 'expected-output'];

/**
 * Builds the check a validated program-running spec describes (`command`, `test-runner`, `expected-output`):
 * the one place a mission file's program checks become checks, for runs and for the AI SDK adapter.
 *
 * @example
 * programCheck(checkSpecSchema.parse({ kind: 'test-runner', name: 'tests', command: 'node --test', format: 'node-spec' }))
 */
export function programCheck(spec: ProgramCheckSpec): Check {
  const check = checkOf(spec);
  // The mission's declared outputs join any the check declares itself.
  return spec.outputs === undefined ? check : { ...check, outputs: [...(check.outputs ?? []), ...spec.outputs] };
}

function checkOf(spec: ProgramCheckSpec): Check {
  const common = { name: spec.name, stage: spec.stage, required: spec.required, timeoutMs: spec.timeout, outputCap: spec.outputCap };
  switch (spec.kind) {
    case 'command':
      return commandCheck({ ...common, command: spec.command, tier: spec.tier });
    case 'test-runner':
      return testRunnerCheck({
        ...common,
        command: spec.command,
        format: spec.format,
        ...(spec.reportFile === undefined ? {} : { reportFile: spec.reportFile }),
        ...(spec.allowMissing === undefined ? {} : { allowMissing: spec.allowMissing }),
      });
    case 'expected-output':
      return expectedOutputCheck({ ...common, command: spec.command, expected: spec.expected, compare: spec.compare });
  }
}
