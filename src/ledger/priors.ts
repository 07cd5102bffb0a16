import { LedgerError } from '../errors/ledger-error.js';
import { AdaptivePriors } from '../guards/adaptive-priors.js';
import type { LearnedPriors, TaskPriors } from './ledger.js';
import type { PriorsStore } from './priors-store.js';

/** Throws a `TypeError` unless `learn` got a task type and finite scores. */
function expectLearnable(taskType: string, scores: readonly number[]): void {
  if (typeof taskType !== 'string' || taskType === '')
    throw new TypeError(`Expected \`taskType\` to be a non-empty string, got ${JSON.stringify(taskType)}`);
  if (!Array.isArray(scores) || !scores.every((score) => typeof score === 'number' && Number.isFinite(score))) {
    throw new TypeError(`Expected \`scores\` to be an array of finite numbers, got ${JSON.stringify(scores)}`);
  }
}

/** A task type's priors after one more finished run. The statistics are `AdaptivePriors`' own, not redone here. */
function learnedPriors(taskType: string, current: TaskPriors | undefined, scores: readonly number[]): TaskPriors {
  const priors = AdaptivePriors.from(current === undefined ? {} : { [taskType]: current });
  priors.record(taskType, scores);
  return priors.toJSON()[taskType] as TaskPriors;
}

const isCount = (value: unknown): boolean => Number.isInteger(value) && (value as number) >= 0;
const isFiniteNumber = (value: unknown): boolean => typeof value === 'number' && Number.isFinite(value);

/** A stored entry (JSON text) back as priors. One that is not an entry means the storage is broken: a `LedgerError`. */
function parsePriors(taskType: string, text: string): TaskPriors {
  let entry: unknown;
  try {
    entry = JSON.parse(text);
  } catch {
    entry = undefined;
  }
  const { runs, gains } = (entry ?? {}) as { runs?: unknown; gains?: unknown };
  const valid =
    isCount(runs) &&
    Array.isArray(gains) &&
    gains.every(
      (gain: { n?: unknown; mean?: unknown; m2?: unknown } | null) =>
        gain !== null && isCount(gain.n) && isFiniteNumber(gain.mean) && isFiniteNumber(gain.m2),
    );
  if (!valid)
    throw new LedgerError({
      code: 'ledger.priors_malformed',
      runId: '',
      message: `the stored priors of task type ${JSON.stringify(taskType)} are not a priors entry: ${text.slice(0, 200)}`,
    });
  return entry as TaskPriors;
}

/** Wraps what a backend threw while reading or learning priors as a `LedgerError` (one already is passes through). */
export function priorsFailure(error: unknown, taskType: string): LedgerError {
  if (error instanceof LedgerError) return error;
  return new LedgerError({
    code: 'ledger.priors_failed',
    runId: '',
    message: `the priors of task type ${JSON.stringify(taskType)} could not be read or written: ${(error as Error)?.message ?? String(error)}`,
    cause: error,
  });
}

/**
 * The learned priors over any {@link PriorsStore}: arguments checked, entries parsed and computed here,
 * once; a store's failure is a `LedgerError` (`ledger.priors_failed`), a stored entry that is not one
 * `ledger.priors_malformed`.
 */
export class StoredPriors implements LearnedPriors {
  readonly #store: PriorsStore;

  constructor(store: PriorsStore) {
    this.#store = store;
  }

  async priors(taskType: string): Promise<TaskPriors | undefined> {
    let text: string | undefined;
    try {
      text = await this.#store.read(taskType);
    } catch (error) {
      throw priorsFailure(error, taskType);
    }
    return text === undefined ? undefined : parsePriors(taskType, text);
  }

  async learn(taskType: string, scores: readonly number[]): Promise<void> {
    expectLearnable(taskType, scores);
    try {
      await this.#store.update(taskType, (current) =>
        JSON.stringify(learnedPriors(taskType, current === undefined ? undefined : parsePriors(taskType, current), scores)),
      );
    } catch (error) {
      throw priorsFailure(error, taskType);
    }
  }
}
