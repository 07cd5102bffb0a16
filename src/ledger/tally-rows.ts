import type { LedgerTally } from './ledger.js';

/** A row of the tally's groups as either SQL backend returns it (PostgreSQL: BIGINT and sums as text). */
export interface TallyDbRow {
  day: number | string;
  outcome: string | null;
  stop_reason: string | null;
  /** The guards as JSON text of an array; null when `run.started` names none. */
  guards: string | null;
  shadow: string | null;
  runs: number | string;
  cost_usd: number | string | null;
}

/** The pooled spread of repeated scores as either SQL backend returns it. */
export interface SpreadDbRow {
  candidates: number | string;
  scores: number | string;
  m2: number | string | null;
}

const DAY_MS = 86_400_000;

/** Guard names from the stored JSON text: only a list of strings counts; anything else is no guards. */
export function guardsOf(text: string | null): readonly string[] {
  if (text === null) return [];
  try {
    const value: unknown = JSON.parse(text);
    return Array.isArray(value) && value.every((name) => typeof name === 'string') ? (value as string[]) : [];
  } catch {
    return [];
  }
}

/** The tally from its SQL rows. */
export function toTally(groups: readonly TallyDbRow[], spread: SpreadDbRow | undefined): LedgerTally {
  // A group per day and kind of ending: the few guard lists repeat, each parsed once.
  const guards = new Map<string | null, readonly string[]>();
  const guardsOfRow = (text: string | null): readonly string[] => guards.get(text) ?? guards.set(text, guardsOf(text)).get(text) ?? [];
  return {
    groups: groups.map((row) => ({
      day: Number(row.day) * DAY_MS,
      outcome: row.outcome ?? '',
      stopReason: row.stop_reason ?? '',
      guards: guardsOfRow(row.guards),
      ...(row.shadow === null ? {} : { shadow: String(row.shadow) }),
      runs: Number(row.runs),
      costUsd: Number(row.cost_usd ?? 0),
    })),
    spread: {
      candidates: Number(spread?.candidates ?? 0),
      scores: Number(spread?.scores ?? 0),
      m2: Math.max(0, Number(spread?.m2 ?? 0)),
    },
  };
}
