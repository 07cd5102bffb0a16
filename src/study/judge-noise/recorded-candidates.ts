import { parseRecord } from '../../ledger/chain.js';
import { streamHistory } from '../../ledger/history.js';
import type { Ledger, RunFilter } from '../../ledger/ledger.js';
import type { Candidate } from '../../core/candidate.js';

/** A candidate a run recorded in one of its attempts, with what a judge needs to score it again. */
export interface RecordedCandidate {
  readonly candidate: Candidate;
  /** The task type of the run that proposed it. */
  readonly taskType: string;
  /** The goal of that run's mission, as the run recorded it. */
  readonly goal: string;
  readonly runId: string;
  readonly attempt: number;
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null;

/** The candidate of an `attempt` record, if it holds one a judge can look at (changed files or a value). */
function candidateOf(data: Readonly<Record<string, unknown>>): Candidate | undefined {
  const { candidate } = data;
  if (!isObject(candidate) || typeof candidate.hash !== 'string' || !isObject(candidate.files)) return undefined;
  const files = candidate.files as Record<string, unknown>;
  if (!Object.values(files).every((content) => typeof content === 'string' || content === null)) return undefined;
  if (Object.keys(files).length === 0 && candidate.value === undefined) return undefined;
  const footprint = Array.isArray(candidate.footprint)
    ? candidate.footprint.filter((item) => typeof item === 'string')
    : Object.keys(files).sort();
  return {
    files: files as Record<string, string | null>,
    footprint,
    hash: candidate.hash,
    ...(candidate.value === undefined ? {} : { value: candidate.value }),
  };
}

/**
 * The `limit` most recently recorded distinct candidates (by content hash) of the runs matching `filter`,
 * newest first. The ledger is streamed: memory holds at most `limit` candidates and one page of runs.
 *
 * @example
 * const candidates = await recentCandidates(ledger, { filter: { missionId: 'summarize' }, limit: 20 });
 */
export async function recentCandidates(
  ledger: Ledger,
  { filter = {}, limit }: { filter?: Omit<RunFilter, 'unsealed'>; limit: number },
): Promise<RecordedCandidate[]> {
  if (!Number.isInteger(limit) || limit < 1) throw new TypeError(`Expected limit to be a positive integer, got ${String(limit)}`);
  // Insertion order is recency: a candidate seen again moves to the end; the oldest is dropped past the limit.
  const kept = new Map<string, RecordedCandidate>();
  for await (const { run, records } of streamHistory(ledger, { filter })) {
    let goal = '';
    for (const stored of records) {
      const record = parseRecord(stored);
      if (record.type === 'run.started') {
        const { mission } = record.data;
        goal = isObject(mission) && typeof mission.goal === 'string' ? mission.goal : '';
      }
      if (record.type !== 'attempt') continue;
      const candidate = candidateOf(record.data);
      if (candidate === undefined) continue;
      const attempt = typeof record.data.attempt === 'number' ? record.data.attempt : 0;
      kept.delete(candidate.hash);
      kept.set(candidate.hash, { candidate, taskType: run.taskType, goal, runId: run.runId, attempt });
      if (kept.size > limit) kept.delete(kept.keys().next().value as string);
    }
  }
  return [...kept.values()].reverse();
}
