import { runtimeGuards } from '../guards/no-change.js';
import { parseRecord } from '../ledger/chain.js';
import { streamHistory } from '../ledger/history.js';
import type { Ledger, RunFilter, RunRecord } from '../ledger/ledger.js';
import { recordsOf } from '../ledger/run-records.js';
import type { ShadowVerdict } from '../core/shadow-verdict.js';
import { JudgeNoise, type NoiseEstimate } from './judge-noise.js';

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

/** What one sealed run contributes to the report, read from its records. */
interface RunFacts {
  readonly stopReason: string;
  readonly policy: string;
  readonly observed: boolean;
  readonly shadow?: ShadowVerdict;
}

/** The guards the runtime stacks on every run: not part of any mission's policy. */
const RUNTIME_GUARDS = new Set(runtimeGuards().map((guard) => guard.name));
/** The facts of a sealed run; undefined when its first or last record is not what a sealed run holds. */
function factsOf(records: readonly RunRecord[], noise: JudgeNoise): RunFacts | undefined {
  const started = records[0];
  const sealed = records.at(-1);
  if (started?.type !== 'run.started' || sealed?.type !== 'run.sealed') return undefined;
  for (const { data } of recordsOf(records, 'attempt'))
    if (data.summary?.score !== undefined) noise.add(data.summary.candidateHash, data.summary.score);
  const policy = (started.data.guards ?? []).filter((name) => !RUNTIME_GUARDS.has(name)).join(', ');
  const { outcome, stopReason, shadow } = sealed.data;
  return {
    stopReason,
    policy: policy === '' ? '(budgets only)' : policy,
    observed: outcome === 'complete' || outcome === 'complete_noop',
    ...(shadow === undefined ? {} : { shadow: shadow.verdict }),
  };
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

function count(counts: ReturnType<typeof empty>, facts: RunFacts): void {
  counts.runs += 1;
  if (facts.observed) counts.observedReached += 1;
  if (facts.shadow === 'error') counts.shadowErrors += 1;
  if (facts.shadow !== 'pass' && facts.shadow !== 'fail') return;
  counts.judged += 1;
  const truly = facts.shadow === 'pass';
  if (truly) counts.trueReached += 1;
  if (facts.observed && !truly) counts.falseReached += 1;
  if (!facts.observed && truly) counts.missedReached += 1;
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

/**
 * Observed vs true reach of the sealed runs matching `filter`, in all, per stop reason and per policy (the
 * guards the run started with, after the budget guards), and the judge's noise σ estimated from repeated
 * scores of identical candidates. Observed reach is what the loop believed (sealed `complete` or
 * `complete_noop`); true reach is what the mission's shadow checks said of the candidate it stopped on.
 * The runs are streamed: memory holds the groups' counts and three numbers per distinct scored candidate.
 *
 * @example
 * const report = await stopQuality(ledger, { taskType: 'ci-fix', since: Date.parse('2026-11-01') });
 */
export async function stopQuality(ledger: Ledger, filter: Omit<RunFilter, 'unsealed' | 'runId'> = {}): Promise<StopQualityReport> {
  const all = empty();
  const byStopReason = new Map<string, ReturnType<typeof empty>>();
  const byPolicy = new Map<string, ReturnType<typeof empty>>();
  const noise = new JudgeNoise();
  for await (const { run, records } of streamHistory(ledger, { filter })) {
    if (!run.sealed) continue;
    const facts = factsOf(records.map(parseRecord), noise);
    if (facts === undefined) continue;
    count(all, facts);
    for (const [groups, key] of [
      [byStopReason, facts.stopReason],
      [byPolicy, facts.policy],
    ] as const) {
      const counts = groups.get(key) ?? empty();
      count(counts, facts);
      groups.set(key, counts);
    }
  }
  return { all: row('all', all), byStopReason: rows(byStopReason), byPolicy: rows(byPolicy), noise: noise.estimate() };
}
