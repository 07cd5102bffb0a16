import { createHash } from 'node:crypto';
import path from 'node:path';
import { MissionError } from '../errors/mission-error.js';
import { canonicalJson } from '../core/canonical-json.js';
import { redactCommands } from '../core/redact-command.js';
import { toMissionIssues } from './issues.js';
import { missionSchema, type MissionInput, type MissionSpec } from './schema.js';

/** A validated, frozen mission: the contract of one run. */
export type Mission = Readonly<MissionSpec> & {
  /** Absolute directory that relative paths of the mission resolve against. */
  readonly baseDir: string;
  /** Absolute workspace directory, when the mission has one. */
  readonly workspaceDir?: string;
};

/**
 * Marks a mission whose `budgets.maxAttempts` is the schema's default rather than the mission's own: a
 * symbol, so it is neither part of the mission's JSON nor of its hash.
 */
const ATTEMPTS_DEFAULTED = Symbol('redline.attemptsDefaulted');

/**
 * Whether the mission itself set `budgets.maxAttempts` (else it holds the default, 5). Under a review queue
 * a mission that did not gets the feedback tuner's limit. A mission not made by `defineMission` counts as
 * setting it.
 */
export function setsMaxAttempts(mission: Mission): boolean {
  return (mission as { readonly [ATTEMPTS_DEFAULTED]?: true })[ATTEMPTS_DEFAULTED] !== true;
}

/** Whether a mission input names `budgets.maxAttempts`. */
function namesMaxAttempts(input: unknown): boolean {
  const budgets = typeof input === 'object' && input !== null ? (input as { budgets?: unknown }).budgets : undefined;
  return typeof budgets === 'object' && budgets !== null && (budgets as { maxAttempts?: unknown }).maxAttempts !== undefined;
}

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}

/**
 * Validates a mission object and returns a frozen copy with defaults filled in.
 * @throws {MissionError} naming the path, what was expected and what was found for every problem.
 * @example
 * const mission = defineMission({ id: 'fix-tests', goal: 'Make the tests pass', workspace: '.',
 *   checks: [{ name: 'tests', kind: 'test-runner', command: 'node --test --test-reporter=tap', format: 'tap' }] });
 */
export function defineMission(
  input: MissionInput | unknown,
  { baseDir = process.cwd(), source = 'object' }: { baseDir?: string; source?: string } = {},
): Mission {
  const parsed = missionSchema.safeParse(input, { reportInput: true });
  if (!parsed.success) throw new MissionError({ source, issues: toMissionIssues(parsed.error.issues) });
  const absoluteBase = path.resolve(baseDir);
  const mission: Mission = {
    ...parsed.data,
    baseDir: absoluteBase,
    ...(parsed.data.workspace === undefined ? {} : { workspaceDir: path.resolve(absoluteBase, parsed.data.workspace) }),
  };
  if (!namesMaxAttempts(input)) Object.defineProperty(mission, ATTEMPTS_DEFAULTED, { value: true });
  return deepFreeze(mission);
}

/**
 * Content hash of a mission as `run.started` records it (secrets in its commands redacted, `redactCommands`),
 * used to prove that nothing changed it during a run: the hash of a recorded mission can be checked from
 * the record alone, and a rotated key is not a new mission.
 */
export function missionHash(mission: Mission): string {
  return createHash('sha256')
    .update(canonicalJson(redactCommands(mission)))
    .digest('hex');
}
