import { TUNER, type Tuner } from '../../review/feedback-tuner.js';
import { StudyOptionError } from '../study-option-error.js';
import { HANDOFF_MODEL, QUALITIES, type HandoffModel, type Quality, type QualityWeights } from './model.js';

/** The calibratable parameters of the handoff model, each optional: a missing one keeps {@link HANDOFF_MODEL}'s value. */
export interface HandoffModelOptions {
  /** A burst minute produces this many times the production rate (a whole number ≥ 1). @default 3 */
  readonly burstFactor?: number;
  /** Quality weights `{ good, minor, critical }` (any positive scale) of refined items. @default 70 / 20 / 10 */
  readonly qualityWeights?: QualityWeights;
  /** Probability that a reviewer approves an item of each quality. @default { good: 0.95, minor: 0.3, critical: 0.1 } */
  readonly approveProbability?: Readonly<Record<Quality, number>>;
  /** Watermarks of the protocol variant, as fractions of capacity: `low` < `high`. @default { high: 0.8, low: 0.3 } */
  readonly watermarks?: { readonly high?: number; readonly low?: number };
  /** The feedback tuner; missing fields keep the defaults. @default TUNER (start 5, window 10, bounds [3, 15], > 0.8 raises, < 0.4 lowers) */
  readonly tuner?: Partial<Tuner>;
}

export const describeValue = (value: unknown): string =>
  typeof value === 'string' || (typeof value === 'object' && value !== null) ? JSON.stringify(value) : String(value);

function inRange(option: string, value: unknown, min: number, max: number, { integer = false, openMin = false } = {}): number {
  const ok =
    typeof value === 'number' &&
    Number.isFinite(value) &&
    (!integer || Number.isInteger(value)) &&
    (openMin ? value > min : value >= min) &&
    value <= max;
  if (ok) return value;
  const kind = integer ? 'an integer' : 'a number';
  throw new StudyOptionError({ option, expected: `${kind} in ${openMin ? '(' : '['}${min}, ${max}]`, got: describeValue(value) });
}

/** Quality weights ≥ 0, not all 0, named `option` in errors. */
export function qualityWeights(option: string, value: unknown): QualityWeights {
  const record = value as Record<Quality, unknown>;
  const valid =
    typeof value === 'object' &&
    value !== null &&
    QUALITIES.every((quality) => typeof record[quality] === 'number' && Number.isFinite(record[quality]) && record[quality] >= 0);
  if (!valid || QUALITIES.every((quality) => record[quality] === 0)) {
    throw new StudyOptionError({ option, expected: 'weights { good, minor, critical } ≥ 0, not all 0', got: describeValue(value) });
  }
  const weights = value as QualityWeights;
  return Object.freeze({ good: weights.good, minor: weights.minor, critical: weights.critical });
}

function approveProbability(value: unknown): Readonly<Record<Quality, number>> {
  if (typeof value !== 'object' || value === null)
    throw new StudyOptionError({
      option: 'approveProbability',
      expected: 'probabilities { good, minor, critical }',
      got: describeValue(value),
    });
  const record = value as Record<Quality, unknown>;
  const [good, minor, critical] = QUALITIES.map((quality) => inRange(`approveProbability.${quality}`, record[quality], 0, 1));
  return Object.freeze({ good: good as number, minor: minor as number, critical: critical as number });
}

function tuner(value: Partial<Tuner>): Tuner {
  const t = { ...TUNER, ...value };
  const window = inRange('tuner.window', t.window, 1, 10_000, { integer: true });
  const min = inRange('tuner.min', t.min, 1, 10_000, { integer: true });
  const max = inRange('tuner.max', t.max, min, 10_000, { integer: true });
  const initial = inRange('tuner.initial', t.initial, min, max, { integer: true });
  const raiseAbove = inRange('tuner.raiseAbove', t.raiseAbove, 0, 1);
  const lowerBelow = inRange('tuner.lowerBelow', t.lowerBelow, 0, raiseAbove);
  return Object.freeze({ initial, window, min, max, raiseAbove, lowerBelow });
}

/** Checks the model options and fills in {@link HANDOFF_MODEL}'s values; throws {@link StudyOptionError} naming the first bad field. */
export function resolveHandoffModel(options: HandoffModelOptions): HandoffModel {
  const { watermarks = {} } = options;
  const high = inRange('watermarks.high', watermarks.high ?? HANDOFF_MODEL.watermarks.high, 0, 1, { openMin: true });
  const low = watermarks.low ?? HANDOFF_MODEL.watermarks.low;
  if (!(typeof low === 'number' && low >= 0 && low < high))
    throw new StudyOptionError({
      option: 'watermarks.low',
      expected: `a number in [0, ${high}) (below watermarks.high)`,
      got: describeValue(low),
    });
  return Object.freeze({
    burstFactor: inRange('burstFactor', options.burstFactor ?? HANDOFF_MODEL.burstFactor, 1, 1000, { integer: true }),
    qualityWeights: qualityWeights('qualityWeights', options.qualityWeights ?? HANDOFF_MODEL.qualityWeights),
    approveProbability: approveProbability(options.approveProbability ?? HANDOFF_MODEL.approveProbability),
    watermarks: Object.freeze({ high, low }),
    tuner: tuner(options.tuner ?? {}),
  });
}
