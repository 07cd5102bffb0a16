import { parseRecord } from './chain.js';
import type { RunRow, RunSummary, StoredRecord } from './ledger.js';
import { sealFields } from './run-row.js';

/** The summary a run's records give (as the seal triggers derive it). The records must parse as their types. */
export function summarizeRun(run: RunRow, records: readonly StoredRecord[]): RunSummary {
  const parsed = records.map(parseRecord);
  const [started, sealed] = [parsed[0], parsed.at(-1)];
  if (!run.sealed || started?.type !== 'run.started' || sealed?.type !== 'run.sealed') return { scores: [] };
  const { shadow, counters } = sealed.data;
  return {
    guards: started.data.guards ?? [],
    ...(shadow === undefined ? {} : { shadow: shadow.verdict }),
    ...(counters?.costUsd === undefined ? {} : { costUsd: counters.costUsd }),
    scores: parsed.flatMap((record) =>
      record.type === 'attempt' && record.data.summary?.score !== undefined
        ? [{ seq: record.seq, candidate: record.data.summary.candidateHash, score: record.data.summary.score }]
        : [],
    ),
  };
}

/** Equal numbers, up to the last bits a database's own JSON number parser may round differently. */
const close = (a: number | undefined, b: number | undefined): boolean =>
  a === b || (a !== undefined && b !== undefined && Math.abs(a - b) <= 1e-12 * Math.max(1, Math.abs(a), Math.abs(b)));

const shown = (value: unknown): string => (value === undefined ? 'none' : JSON.stringify(value));

/**
 * Why a run's derived columns — its row's outcome, verification and stop reason, and (when the store
 * keeps one) its summary — disagree with its records, or undefined when they agree. The records must
 * parse as their types.
 */
export function summaryProblem(run: RunRow, records: readonly StoredRecord[], stored: RunSummary | undefined): string | undefined {
  const seal = run.sealed ? records.at(-1) : undefined;
  const fields = seal?.type === 'run.sealed' ? sealFields(seal.body) : {};
  for (const key of ['outcome', 'verification', 'stopReason'] as const)
    if (run[key] !== fields[key]) return `the run row's ${key} is ${shown(run[key])}, its records say ${shown(fields[key])}`;
  if (stored === undefined) return undefined;
  const derived = summarizeRun(run, records);
  if (shown(stored.guards) !== shown(derived.guards))
    return `the summary's guards are ${shown(stored.guards)}, its records say ${shown(derived.guards)}`;
  if (stored.shadow !== derived.shadow)
    return `the summary's shadow verdict is ${shown(stored.shadow)}, its seal says ${shown(derived.shadow)}`;
  if (!close(stored.costUsd, derived.costUsd))
    return `the summary's spend is ${shown(stored.costUsd)}, its seal says ${shown(derived.costUsd)}`;
  const [kept, scored] = [stored.scores, derived.scores];
  const differs =
    kept.length !== scored.length ||
    kept.some((score, index) => {
      const other = scored[index];
      return other === undefined || score.seq !== other.seq || score.candidate !== other.candidate || !close(score.score, other.score);
    });
  return differs ? `the summary's scores are ${shown(kept)}, its attempts say ${shown(scored)}` : undefined;
}
