import { parseRecord } from '../ledger/chain.js';
import { streamHistory } from '../ledger/history.js';
import type { Ledger, RunFilter } from '../ledger/ledger.js';
import { recordsOf } from '../ledger/run-records.js';

/** What one sealed run spent, from its seal's counters and its attempts' metered calls. */
export interface SpendRow {
  readonly runId: string;
  readonly missionId: string;
  readonly outcome: string;
  readonly stopReason: string;
  readonly attempts: number;
  readonly inputTokens: number;
  readonly outputTokens: number;
  readonly costUsd: number;
  /** Model calls that went through a meter, refused ones included. */
  readonly modelCalls: number;
}

/** What `redline report spend` reports: each sealed run's spend, oldest first, and their sum. */
export interface SpendReport {
  readonly runs: readonly SpendRow[];
  readonly total: Omit<SpendRow, 'runId' | 'missionId' | 'outcome' | 'stopReason'> & { readonly runs: number };
}

/**
 * The spend of the sealed runs matching `filter`: tokens and dollars as their seals counted them (what the
 * budgets were held to), and the model calls their agents made through a meter. Runs are streamed.
 * @example
 * const { total } = await spendReport(ledger, { since: Date.parse('2026-11-01') });
 */
export async function spendReport(ledger: Ledger, filter: Omit<RunFilter, 'unsealed' | 'runId'> = {}): Promise<SpendReport> {
  const runs: SpendRow[] = [];
  for await (const { run, records } of streamHistory(ledger, { filter })) {
    if (!run.sealed) continue;
    const parsed = records.map(parseRecord);
    const sealed = parsed.at(-1);
    if (sealed?.type !== 'run.sealed') continue;
    const { counters } = sealed.data;
    const modelCalls = recordsOf(parsed, 'attempt').reduce((sum, { data }) => {
      const meter = data.account?.meter;
      return sum + (meter === undefined ? 0 : meter.calls.length + meter.dropped);
    }, 0);
    runs.push({
      runId: run.runId,
      missionId: run.missionId,
      outcome: sealed.data.outcome,
      stopReason: sealed.data.stopReason,
      attempts: sealed.data.attempts ?? 0,
      inputTokens: counters?.inputTokens ?? 0,
      outputTokens: counters?.outputTokens ?? 0,
      costUsd: counters?.costUsd ?? 0,
      modelCalls,
    });
  }
  const sum = (pick: (row: SpendRow) => number): number => runs.reduce((total, row) => total + pick(row), 0);
  return {
    runs,
    total: {
      runs: runs.length,
      attempts: sum((row) => row.attempts),
      inputTokens: sum((row) => row.inputTokens),
      outputTokens: sum((row) => row.outputTokens),
      costUsd: sum((row) => row.costUsd),
      modelCalls: sum((row) => row.modelCalls),
    },
  };
}
