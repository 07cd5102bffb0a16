import { canonicalJson } from '../loop/canonical-json.js';
import type { Alert } from './alerts.js';
import type { ModeChange, QueueMode } from './backpressure.js';
import type { LimitChange } from './feedback-tuner.js';
import {
  parseJournalRow,
  verifyJournal,
  type JournalEntry,
  type JournalHead,
  type JournalRow,
  type JournalType,
  type JournalVerification,
} from './journal.js';
import type { DroppedItem, Verdict } from './review-queue.js';

/** What a SQL queue's tables hold, read in one snapshot with its journal, to be checked against it. */
export interface QueueTables {
  /** The state row; absent before the queue was first opened. */
  readonly state?: {
    readonly mode: QueueMode;
    readonly attemptLimit: number;
    /** The settings in force, as stored (JSON). */
    readonly settings: string | null;
    /** The count of open items the row keeps, where the backend keeps one (PostgreSQL). */
    readonly depth?: number;
  };
  /** Items still in the queue (queued or claimed). */
  readonly openItems: number;
  /** Items that left the queue, with how they left. */
  readonly closedItems: readonly { readonly id: string; readonly state: 'decided' | 'dropped' }[];
  /** Each table in its own order (`seq`). */
  readonly verdicts: readonly Verdict[];
  readonly dropped: readonly DroppedItem[];
  readonly modeChanges: readonly ModeChange[];
  readonly limitChanges: readonly LimitChange[];
  readonly alerts: readonly Alert[];
}

/** The first place a queue table says something its journal does not. */
export interface TableDisagreement {
  readonly table: string;
  /** The journal entry the table disagrees with, when there is one. */
  readonly seq?: number;
  readonly detail: string;
}

/** A SQL queue as stored: its journal, the head its state row keeps, and its tables, from one snapshot. */
export interface StoredQueue {
  readonly rows: readonly JournalRow[];
  readonly head: JournalHead;
  readonly tables: QueueTables;
}

/**
 * Verifies a stored queue: its journal's chain first, then its tables against the journal; the first
 * problem found is reported (`firstBad` for the chain, `disagreement` for a table).
 */
export function verifyStoredQueue({ rows, head, tables }: StoredQueue): JournalVerification {
  const chain = verifyJournal(rows, head);
  if (!chain.ok) return chain;
  const disagreement = checkQueueTables(rows.map(parseJournalRow), tables);
  return disagreement === undefined ? chain : { ...chain, ok: false, disagreement };
}

interface Kind {
  readonly table: string;
  readonly noun: string;
  /** What both sides are compared as: the journal's data, or a row as the queue reads it. */
  readonly project: (value: Readonly<Record<string, unknown>>) => Record<string, unknown>;
  /** Rows are matched to entries by this key; without one, the n-th row to the n-th entry. */
  readonly key?: (value: Readonly<Record<string, unknown>>) => string;
}

const KINDS: Partial<Record<JournalType, Kind>> = {
  verdict: { table: 'review_verdicts', noun: 'verdict', project: (value) => ({ ...value }), key: (value) => String(value.id) },
  drop: {
    table: 'review_breaker_log',
    noun: 'dropped item',
    project: (value) => ({ ...value }),
    key: (value) => String((value.item as { id?: unknown } | undefined)?.id),
  },
  alert: {
    table: 'review_alerts',
    noun: 'alert',
    // The webhook's delivery is recorded after the alert, outside the journal.
    project: ({ webhook: _webhook, ...value }) => value,
    key: (value) => String(value.id),
  },
  // The journal adds the cause (the item, or `settings`) to what the table keeps.
  mode_change: { table: 'review_mode_changes', noun: 'mode change', project: ({ from, to, depth, at }) => ({ from, to, depth, at }) },
  limit_change: { table: 'review_limit_changes', noun: 'limit change', project: (value) => ({ ...value }) },
};

type Rows = Record<'verdict' | 'drop' | 'alert' | 'mode_change' | 'limit_change', readonly object[]>;

/**
 * Checks a queue's tables against its verified journal: every verdict, drop, alert, mode change and
 * limit change row matches a journal entry and every entry has its row; the items the journal decided or
 * dropped left the queue that way and no other item did; the state row's mode, attempt limit and settings
 * are the journal's latest (and, where kept, its depth the count of open items). Undefined when they agree.
 */
export function checkQueueTables(entries: readonly JournalEntry[], tables: QueueTables): TableDisagreement | undefined {
  const rows: Rows = {
    verdict: tables.verdicts,
    drop: tables.dropped,
    alert: tables.alerts,
    mode_change: tables.modeChanges,
    limit_change: tables.limitChanges,
  };
  return checkRows(entries, rows) ?? checkItems(entries, tables) ?? checkState(entries, tables);
}

function checkRows(entries: readonly JournalEntry[], rows: Rows): TableDisagreement | undefined {
  const matched = new Map<string, Set<string>>();
  const positions = new Map<string, number>();
  for (const entry of entries) {
    const kind = KINDS[entry.type];
    if (kind === undefined) continue;
    const stored = rows[entry.type as keyof Rows] as readonly Readonly<Record<string, unknown>>[];
    let row: Readonly<Record<string, unknown>> | undefined;
    let name: string;
    if (kind.key === undefined) {
      const position = positions.get(entry.type) ?? 0;
      positions.set(entry.type, position + 1);
      row = stored[position];
      name = `${kind.noun} ${position + 1}`;
    } else {
      const key = kind.key(entry.data);
      row = stored.find((candidate) => kind.key?.(candidate) === key);
      if (!matched.has(entry.type)) matched.set(entry.type, new Set());
      matched.get(entry.type)?.add(key);
      name = `${kind.noun} ${key}`;
    }
    if (row === undefined)
      return { table: kind.table, seq: entry.seq, detail: `${name} of journal entry ${entry.seq} is missing from ${kind.table}` };
    const field = firstDifference(kind.project(entry.data), kind.project(row));
    if (field !== undefined)
      return { table: kind.table, seq: entry.seq, detail: `${name} in ${kind.table} differs from journal entry ${entry.seq}: ${field}` };
  }
  for (const [type, kind] of Object.entries(KINDS) as [keyof Rows, Kind][]) {
    const stored = rows[type] as readonly Readonly<Record<string, unknown>>[];
    if (kind.key === undefined) {
      const journaled = positions.get(type) ?? 0;
      if (stored.length > journaled)
        return { table: kind.table, detail: `${kind.table} holds ${stored.length} ${kind.noun}s, the journal records ${journaled}` };
      continue;
    }
    const extra = stored.find((row) => !(matched.get(type)?.has(kind.key?.(row) ?? '') ?? false));
    if (extra !== undefined)
      return { table: kind.table, detail: `${kind.table} holds ${kind.noun} ${kind.key(extra)}, which no journal entry records` };
  }
  return undefined;
}

function checkItems(entries: readonly JournalEntry[], tables: QueueTables): TableDisagreement | undefined {
  const states = new Map(tables.closedItems.map((item) => [item.id, item.state]));
  const ended = new Map<string, 'decided' | 'dropped'>();
  for (const entry of entries) {
    if (entry.type !== 'verdict' && entry.type !== 'drop') continue;
    const id = entry.type === 'verdict' ? String(entry.data.itemId) : String((entry.data.item as { id?: unknown }).id);
    const expected = entry.type === 'verdict' ? 'decided' : 'dropped';
    ended.set(id, expected);
    const state = states.get(id);
    if (state !== expected)
      return {
        table: 'review_items',
        seq: entry.seq,
        detail: `item ${id} is ${state ?? `not ${expected}`} in review_items, but journal entry ${entry.seq} says ${expected}`,
      };
  }
  const unexplained = tables.closedItems.find((item) => ended.get(item.id) !== item.state);
  if (unexplained !== undefined)
    return {
      table: 'review_items',
      detail: `item ${unexplained.id} is ${unexplained.state} in review_items, but no journal entry says so`,
    };
  return undefined;
}

function checkState(entries: readonly JournalEntry[], { state, openItems }: QueueTables): TableDisagreement | undefined {
  const last = (type: JournalType): JournalEntry | undefined => entries.findLast((entry) => entry.type === type);
  if (state === undefined)
    return entries.length === 0
      ? undefined
      : { table: 'review_state', detail: `review_state has no row, but the journal holds ${entries.length} entries` };
  const mode = last('mode_change');
  const expectedMode = (mode?.data.to as QueueMode | undefined) ?? 'normal';
  if (state.mode !== expectedMode)
    return {
      table: 'review_state',
      ...seqOf(mode),
      detail: `the mode is ${state.mode} in review_state, but the journal's ${mode === undefined ? 'start' : `entry ${mode.seq}`} says ${expectedMode}`,
    };
  const limit = last('limit_change');
  const first = entries.find((entry) => entry.type === 'settings');
  const initial = (first?.data.to as { tuner?: { initial?: unknown } } | undefined)?.tuner?.initial;
  const expectedLimit = limit === undefined ? initial : limit.data.to;
  if (expectedLimit !== undefined && state.attemptLimit !== expectedLimit) {
    return {
      table: 'review_state',
      ...seqOf(limit ?? first),
      detail: `the attempt limit is ${state.attemptLimit} in review_state, but journal entry ${(limit ?? first)?.seq} says ${String(expectedLimit)}`,
    };
  }
  const settings = last('settings');
  if (settings !== undefined && (state.settings === null || canonicalJson(parse(state.settings)) !== canonicalJson(settings.data.to))) {
    return {
      table: 'review_state',
      seq: settings.seq,
      detail: `the settings in review_state are not the ones journal entry ${settings.seq} put in force`,
    };
  }
  if (state.depth !== undefined && state.depth !== openItems)
    return { table: 'review_state', detail: `the depth is ${state.depth} in review_state, but review_items holds ${openItems} open items` };
  return undefined;
}

const seqOf = (entry: JournalEntry | undefined): { seq?: number } => (entry === undefined ? {} : { seq: entry.seq });

function parse(json: string): unknown {
  try {
    return JSON.parse(json) as unknown;
  } catch {
    return json;
  }
}

/** The first field whose value differs, as `field is X in the table, Y in the journal`. */
function firstDifference(journaled: Record<string, unknown>, stored: Record<string, unknown>): string | undefined {
  for (const field of [...new Set([...Object.keys(journaled), ...Object.keys(stored)])].sort()) {
    const [inJournal, inTable] = [journaled[field], stored[field]].map((value) => (value === undefined ? 'absent' : canonicalJson(value)));
    if (inJournal !== inTable) return `${field} is ${short(inTable ?? '')} in the table, ${short(inJournal ?? '')} in the journal`;
  }
  return undefined;
}

const short = (text: string): string => (text.length > 80 ? `${text.slice(0, 77)}...` : text);
