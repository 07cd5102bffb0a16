import type { Check } from '../../core/check.js';
import { JudgeNoise } from '../../analysis/judge-noise.js';
import { sigmaInterval } from './chi-square.js';
import type { RecordedCandidate } from './recorded-candidates.js';

/** The judge's noise over one group of candidates (one task type, or all). */
export interface NoiseRow {
  /** The task type, or `all`. */
  readonly taskType: string;
  /** Candidates scored at least twice. */
  readonly candidates: number;
  /** Scores of those candidates. */
  readonly scores: number;
  /** Scoring calls that gave no score (the judge failed or answered out of range). */
  readonly errors: number;
  /** Σ (scores of a candidate − 1). */
  readonly degreesOfFreedom: number;
  /** Pooled within-candidate standard deviation of the scores; absent without degrees of freedom. */
  readonly sigma?: number;
  /** The `level` confidence interval of σ (chi-square); absent with `sigma`. */
  readonly interval?: readonly [number, number];
  /** σ in the form a mission's `noiseAware` guard takes (`noise`): 4 decimals, within [0.000001, 1]. */
  readonly noise?: number;
  /** The interval's upper end in the same form: the cautious `noise` to configure. */
  readonly noiseUpper?: number;
}

/** What `calibrateJudge` measured. */
export interface JudgeCalibration {
  /** The score check whose judge was asked. */
  readonly check: string;
  readonly repeats: number;
  /** Confidence level of the intervals. */
  readonly level: number;
  readonly all: NoiseRow;
  /** One row per task type, in the order the candidates first named them. */
  readonly byTaskType: readonly NoiseRow[];
}

export interface CalibrateJudgeOptions {
  /** A score check (semantic tier): its findings carry the judge's `score`. */
  readonly check: Check;
  readonly candidates: readonly RecordedCandidate[];
  /** Times each candidate is scored, at least 2. */
  readonly repeats: number;
  /** Confidence level of σ's interval. @default 0.95 */
  readonly level?: number;
  readonly signal?: AbortSignal;
  /** Called after each candidate's repeats. */
  readonly onCandidate?: (progress: { readonly done: number; readonly total: number }) => void;
}

const guardForm = (sigma: number): number => Math.min(1, Math.max(0.000001, Math.round(sigma * 10_000) / 10_000));

function row(taskType: string, noise: JudgeNoise, errors: number, level: number): NoiseRow {
  const { sigma, candidates, scores, degreesOfFreedom } = noise.estimate();
  if (sigma === undefined) return { taskType, candidates, scores, errors, degreesOfFreedom };
  const interval = sigmaInterval({ sigma, df: degreesOfFreedom, level });
  return {
    taskType,
    candidates,
    scores,
    errors,
    degreesOfFreedom,
    sigma,
    interval,
    noise: guardForm(sigma),
    noiseUpper: guardForm(interval[1]),
  };
}

/**
 * Live judge noise: scores each recorded candidate `repeats` times with the same judge and pools the
 * spread of each candidate's scores (the judge saw the same thing each time, so the spread is its noise).
 * Reports σ with a chi-square confidence interval per task type and over all, in the form a mission's
 * `noiseAware` guard takes. The candidates are scored one call at a time, in order.
 *
 * @example
 * const candidates = await recentCandidates(ledger, { filter: { missionId: mission.id }, limit: 20 });
 * const [check] = await buildChecks(mission);
 * const { all } = await calibrateJudge({ check, candidates, repeats: 5 });
 * all.noise; // e.g. 0.0812, for stopPolicy: { guards: [{ noiseAware: { bar, confidence, noise } }] }
 */
export async function calibrateJudge({
  check,
  candidates,
  repeats,
  level = 0.95,
  signal = new AbortController().signal,
  onCandidate,
}: CalibrateJudgeOptions): Promise<JudgeCalibration> {
  if (!Number.isInteger(repeats) || repeats < 2) throw new TypeError(`Expected repeats to be an integer ≥ 2, got ${String(repeats)}`);
  if (!(level > 0 && level < 1)) throw new TypeError(`Expected level to be in (0, 1), got ${String(level)}`);
  const all = new JudgeNoise();
  const groups = new Map<string, { noise: JudgeNoise; errors: number }>();
  let errors = 0;
  for (const [index, { candidate, goal, attempt, taskType }] of candidates.entries()) {
    const group = groups.get(taskType) ?? { noise: new JudgeNoise(), errors: 0 };
    groups.set(taskType, group);
    for (let repeat = 0; repeat < repeats; repeat += 1) {
      signal.throwIfAborted();
      const findings = await check.run({ candidate, goal, attempt, signal });
      const score = findings.find((finding) => finding.status !== 'error' && typeof finding.score === 'number')?.score;
      if (score === undefined) {
        errors += 1;
        group.errors += 1;
        continue;
      }
      all.add(candidate.hash, score);
      group.noise.add(candidate.hash, score);
    }
    onCandidate?.({ done: index + 1, total: candidates.length });
  }
  return {
    check: check.name,
    repeats,
    level,
    all: row('all', all, errors, level),
    byTaskType: [...groups].map(([taskType, group]) => row(taskType, group.noise, group.errors, level)),
  };
}
