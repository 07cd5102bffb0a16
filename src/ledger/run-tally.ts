import { parseRecord } from './chain.js';
import { streamHistory } from './history.js';
import type { Ledger, LedgerTally, RunTally, StoredRun, TallyFilter } from './ledger.js';

const DAY_MS = 86_400_000;

/** A group of runs as it grows. */
type Group = { -readonly [K in keyof RunTally]: RunTally[K] };

/**
 * The tally of stored runs, read record by record: what a store without aggregates (and a ledger
 * without `tally`) answers. Runs that are not sealed, or whose first record is not `run.started`, are left out.
 */
export async function tallyRuns(runs: AsyncIterable<StoredRun> | Iterable<StoredRun>): Promise<LedgerTally> {
  const groups = new Map<string, Group>();
  const byCandidate = new Map<string, { n: number; mean: number; m2: number }>();
  for await (const { run, records } of runs) {
    const parsed = records.map(parseRecord);
    const [started, sealed] = [parsed[0], parsed.at(-1)];
    if (!run.sealed || started?.type !== 'run.started' || sealed?.type !== 'run.sealed') continue;
    const guards = started.data.guards ?? [];
    const shadow = sealed.data.shadow?.verdict;
    const day = Math.floor(run.startedAt / DAY_MS) * DAY_MS;
    const { outcome, stopReason } = sealed.data;
    const key = JSON.stringify([day, outcome, stopReason, guards, shadow ?? null]);
    const group = groups.get(key) ?? { day, outcome, stopReason, guards, ...(shadow === undefined ? {} : { shadow }), runs: 0, costUsd: 0 };
    group.runs += 1;
    group.costUsd += sealed.data.counters?.costUsd ?? 0;
    groups.set(key, group);
    for (const record of parsed) {
      const summary = record.type === 'attempt' ? record.data.summary : undefined;
      if (summary?.score === undefined) continue;
      // Welford's running mean and squared deviations, per candidate.
      const running = byCandidate.get(summary.candidateHash) ?? { n: 0, mean: 0, m2: 0 };
      running.n += 1;
      const delta = summary.score - running.mean;
      running.mean += delta / running.n;
      running.m2 += delta * (summary.score - running.mean);
      byCandidate.set(summary.candidateHash, running);
    }
  }
  const repeated = [...byCandidate.values()].filter(({ n }) => n > 1);
  return {
    groups: [...groups.values()],
    spread: {
      candidates: repeated.length,
      scores: repeated.reduce((sum, { n }) => sum + n, 0),
      m2: repeated.reduce((sum, { m2 }) => sum + m2, 0),
    },
  };
}

/**
 * The tally of the sealed runs matching `filter`: the ledger's own aggregate where it has one, else its
 * history streamed and counted here.
 * @example
 * const { groups } = await ledgerTally(ledger, { taskType: 'ci-fix' });
 */
export function ledgerTally(ledger: Ledger, filter: TallyFilter = {}): Promise<LedgerTally> {
  return ledger.tally !== undefined ? ledger.tally(filter) : tallyRuns(streamHistory(ledger, { filter }));
}
