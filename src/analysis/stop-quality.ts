import { runtimeGuards } from '../guards/no-change.js';
import type { Ledger, LedgerTally, RunTally, TallyFilter } from '../ledger/ledger.js';
import { ledgerTally } from '../ledger/run-tally.js';
import { noiseEstimate, type NoiseEstimate } from './judge-noise.js';

/** Observed vs true reach over one group of sealed runs. */
export interface ReachRow {
  /** The stop reason, the policy (its guards after the budgets, in order), or `all`. */
  readonly key: string;
  readonly runs: number;
  /** Runs the loop sealed `complete` or `complete_noop`: it believed the requirement held. */
  readonly observedReached: number;
  /** `observedReached / runs`; null without runs. */
  readonly observedReach: number | null;
  /** Runs whose seal holds a conclusive shadow verdict (`pass` or `fail`). */
  readonly judged: number;
  /** Judged runs whose shadow passed on the candidate the loop stopped on. */
  readonly trueReached: number;
  /** `trueReached / judged`; null when no run was judged. */
  readonly trueReach: number | null;
  /** Judged runs the loop believed reached whose shadow failed: false stops. */
  readonly falseReached: number;
  /** Judged runs the loop did not believe reached whose shadow passed: missed stops. */
  readonly missedReached: number;
  /** Runs whose shadow could not tell (`error`). */
  readonly shadowErrors: number;
}

/** What `redline report stop-quality` reports. */
export interface StopQualityReport {
  readonly all: ReachRow;
  readonly byStopReason: readonly ReachRow[];
  readonly byPolicy: readonly ReachRow[];
  readonly noise: NoiseEstimate;
}

/** The guards the runtime stacks on every run: not part of any mission's policy. */
const RUNTIME_GUARDS = new Set(runtimeGuards().map((guard) => guard.name));

/** A run's policy: the guards it started with after the runtime's, in order. */
export function policyOf(guards: readonly string[]): string {
  const policy = guards.filter((name) => !RUNTIME_GUARDS.has(name)).join(', ');
  return policy === '' ? '(budgets only)' : policy;
}

type Counts = Omit<ReachRow, 'key' | 'observedReach' | 'trueReach'>;

const empty = (): { -readonly [K in keyof Counts]: number } => ({
  runs: 0,
  observedReached: 0,
  judged: 0,
  trueReached: 0,
  falseReached: 0,
  missedReached: 0,
  shadowErrors: 0,
});

/** Adds a group of runs that ended alike: observed reach is what the loop believed (sealed complete or complete_noop). */
function count(counts: ReturnType<typeof empty>, { outcome, shadow, runs }: RunTally): void {
  const observed = outcome === 'complete' || outcome === 'complete_noop';
  counts.runs += runs;
  if (observed) counts.observedReached += runs;
  if (shadow === 'error') counts.shadowErrors += runs;
  if (shadow !== 'pass' && shadow !== 'fail') return;
  counts.judged += runs;
  const truly = shadow === 'pass';
  if (truly) counts.trueReached += runs;
  if (observed && !truly) counts.falseReached += runs;
  if (!observed && truly) counts.missedReached += runs;
}

function row(key: string, counts: Counts): ReachRow {
  return {
    key,
    runs: counts.runs,
    observedReached: counts.observedReached,
    observedReach: counts.runs === 0 ? null : counts.observedReached / counts.runs,
    judged: counts.judged,
    trueReached: counts.trueReached,
    trueReach: counts.judged === 0 ? null : counts.trueReached / counts.judged,
    falseReached: counts.falseReached,
    missedReached: counts.missedReached,
    shadowErrors: counts.shadowErrors,
  };
}

const rows = (groups: Map<string, Counts>): ReachRow[] =>
  [...groups].map(([key, counts]) => row(key, counts)).sort((a, b) => b.runs - a.runs || (a.key < b.key ? -1 : 1));

/** The stop-quality report of a tally (see {@link stopQuality}). */
export function reachReport({ groups, spread }: LedgerTally): StopQualityReport {
  const all = empty();
  const byStopReason = new Map<string, ReturnType<typeof empty>>();
  const byPolicy = new Map<string, ReturnType<typeof empty>>();
  for (const group of groups) {
    count(all, group);
    for (const [keyed, key] of [
      [byStopReason, group.stopReason],
      [byPolicy, policyOf(group.guards)],
    ] as const) {
      const counts = keyed.get(key) ?? empty();
      count(counts, group);
      keyed.set(key, counts);
    }
  }
  return { all: row('all', all), byStopReason: rows(byStopReason), byPolicy: rows(byPolicy), noise: noiseEstimate(spread) };
}

/**
 * Observed vs true reach of the sealed runs matching `filter`, in all, per stop reason and per policy (the
 * guards the run started with, after the budget guards), and the judge's noise σ estimated from repeated
 * scores of identical candidates. Observed reach is what the loop believed (sealed `complete` or
 * `complete_noop`); true reach is what the mission's shadow checks said of the candidate it stopped on.
 * Counted by the ledger's aggregates where it has them (`ledgerTally`), else streamed.
 *
 * @example
 * const report = await stopQuality(ledger, { taskType: 'ci-fix', since: Date.parse('2026-11-01') });
 */
export async function stopQuality(ledger: Ledger, filter: TallyFilter = {}): Promise<StopQualityReport> {
  return reachReport(await ledgerTally(ledger, filter));
}
