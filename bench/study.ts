// Wall time of the stop-rules study: the full default study (all strategies, 5 σ, 10 seeds, the
// cold-start curve), and separately the noise-aware calibration sweep the CLI adds by default.
import { runStopRulesStudy } from '../src/study/index.js';

export interface StudyBenchResult {
  /** Milliseconds, median of the rounds: all strategies × 5 σ × 10 seeds + cold start. */
  readonly coreMs: number;
  /** Milliseconds, one run: the same plus the default calibration sweep (15 confidences × 2 noise modes). */
  readonly withCalibrationMs: number;
  readonly rounds: number;
}

const median = (values: readonly number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] as number;

/** `seeds` and `confidences` other than the defaults only for a quick pass: the target is for the defaults. */
export async function studyBench({
  rounds = 5,
  seeds,
  confidences,
}: { rounds?: number; seeds?: number; confidences?: readonly number[] } = {}): Promise<StudyBenchResult> {
  const sized = seeds === undefined ? {} : { seeds };
  // Warm-up: compiles the hot paths, as a long-lived process would have.
  await runStopRulesStudy({ ...sized, confidences: [] });
  const core: number[] = [];
  for (let round = 0; round < rounds; round += 1) {
    const started = performance.now();
    await runStopRulesStudy({ ...sized, confidences: [] });
    core.push(performance.now() - started);
  }
  const started = performance.now();
  await runStopRulesStudy({ ...sized, ...(confidences === undefined ? {} : { confidences }) });
  return { coreMs: median(core), withCalibrationMs: performance.now() - started, rounds };
}
