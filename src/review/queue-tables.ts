import { canonicalJson } from '../core/canonical-json.js';
import type { QueueMode } from './backpressure.js';
import { ruleIdOf } from './filter-rules.js';
import type { PreJournalRows, ProvenTable } from './pre-journal.js';
import { asker, type Awaitable, type Steps } from './drive.js';
import {
  EMPTY_JOURNAL,
  JournalChain,
  type JournalHead,
  type JournalRow,
  type JournalVerification,
  type TableDisagreement,
} from './journal.js';
import type { JournalEntry, JournalType, TypedJournalEntry } from './journal-entries.js';
import type { JournalSignatureOptions } from './journal-signature.js';

/** The running counters a state row keeps (schema version 4 on), each a count over the queue's tables. */
export interface QueueCounters {
  /** Open items (queued or claimed). */
  readonly depth: number;
  readonly verdicts: number;
  readonly approved: number;
  /** Rows of the circuit-breaker log. */
  readonly dropped: number;
  readonly alerts: number;
}

/** The state row as verification reads it; absent before the queue was first opened. */
export interface StoredState {
  readonly head: JournalHead;
  readonly mode: QueueMode;
  readonly attemptLimit: number;
  /** The settings in force, as stored (JSON). */
  readonly settings: string | null;
  /** The counters the row keeps: none, or the depth alone, on a queue not yet migrated to keep them all. */
  readonly counters: Partial<QueueCounters>;
  /** Rows per table from before the journal, fixed at migration: none on a queue not yet migrated to count them. */
  readonly preJournal: Partial<PreJournalRows>;
}

/**
 * A SQL queue's storage as verification reads it, in pages, all within one snapshot the caller holds.
 * Rows come back as the queue reads them (a verdict, a dropped item, …).
 */
export interface QueueStore {
  state(): Awaitable<StoredState | undefined>;
  /** Up to `limit` journal rows after `after` (-1: from the start), in order. */
  journal(after: number, limit: number): Awaitable<readonly JournalRow[]>;
  /** Up to `limit` rows of `table` with `seq` above `after`, in order. */
  rows(table: ProvenTable, after: number, limit: number): Awaitable<readonly { seq: number; value: object }[]>;
  /** How the given items stand (missing ones are left out). */
  itemStates(ids: readonly string[]): Awaitable<readonly { id: string; state: string }[]>;
  /** The first item that left the queue without a verdict or drop row to say how. */
  unexplainedItem(): Awaitable<{ id: string; state: string } | undefined>;
  /** The counts the state row's counters stand for, counted over the tables. */
  counts(): Awaitable<QueueCounters>;
}

/** Journal rows and table rows read at once: memory stays flat in the journal's length. */
const PAGE = 500;

const ask = asker<QueueStore>();

interface Kind {
  readonly table: ProvenTable;
  readonly noun: string;
  /** What both sides are compared as: the journal's data, or a row as the queue reads it. */
  readonly project: (value: Readonly<Record<string, unknown>>) => Record<string, unknown>;
  /** What names a row in a message; without one, its position among the journal's entries of its kind. */
  readonly key?: (value: Readonly<Record<string, unknown>>) => string;
}

const KINDS: Partial<Record<JournalType, Kind>> = {
  verdict: { table: 'review_verdicts', noun: 'verdict', project: (value) => ({ ...value }), key: (value) => String(value.id) },
  drop: {
    table: 'review_breaker_log',
    noun: 'dropped item',
    project: (value) => ({ ...value }),
    key: (value) => idOf(value.item),
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

/** One table read in step with the journal: each entry of its kind is the table's next row. */
class TableCursor {
  #page: readonly { seq: number; value: object }[] = [];
  #index = 0;
  #after = -1;
  #done = false;
  /** Rows matched to journal entries so far. */
  matched = 0;
  /** Leading rows stepped past as recorded before the journal. */
  skipped = 0;

  constructor(readonly kind: Kind) {}

  *next(): Steps<QueueStore, Readonly<Record<string, unknown>> | undefined> {
    if (this.#index >= this.#page.length && !this.#done) {
      const { table } = this.kind;
      const after = this.#after;
      this.#page = yield* ask((store) => store.rows(table, after, PAGE));
      this.#index = 0;
      this.#done = this.#page.length < PAGE;
    }
    const row = this.#page[this.#index];
    if (row === undefined) return undefined;
    this.#index += 1;
    this.#after = row.seq;
    return row.value as Readonly<Record<string, unknown>>;
  }
}

/** An item a journal entry (or a row from before the journal) says left the queue, and how. */
interface Ended {
  readonly id: string;
  readonly expected: 'decided' | 'dropped';
  /** What says so: `journal entry 7`, or a table's row from before the journal. */
  readonly says: string;
  readonly seq?: number;
}

/** The item a verdict or drop row ended, as the row is read. */
const ENDS: Partial<Record<ProvenTable, (value: Readonly<Record<string, unknown>>) => Omit<Ended, 'says'>>> = {
  review_verdicts: (value) => ({ id: String(value.itemId), expected: 'decided' }),
  review_breaker_log: (value) => ({ id: idOf(value.item), expected: 'dropped' }),
};

/** The `id` of an object a row holds (a dropped item), as text. */
function idOf(value: unknown): string {
  return String(typeof value === 'object' && value !== null && 'id' in value ? value.id : undefined);
}

/** The newest journal entries that set the state row's mode, attempt limit and settings, and the first settings. */
interface Latest {
  mode?: TypedJournalEntry<'mode_change'>;
  limit?: TypedJournalEntry<'limit_change'>;
  /** The newest entry that put settings in force: a settings change, or a filter rule's. */
  settings?: TypedJournalEntry<'settings'> | TypedJournalEntry<'filter_rule'>;
  firstSettings?: TypedJournalEntry<'settings'>;
}

/** Where the journal's story of the mode and attempt limit starts: the last change from before it. */
interface Before {
  mode?: Readonly<Record<string, unknown>> | undefined;
  limit?: Readonly<Record<string, unknown>> | undefined;
}

/**
 * Verifies a SQL queue as stored, streaming: its journal's chain, then its tables against the journal,
 * then the state row (mode, attempt limit and settings the journal's latest; each counter the count it
 * stands for). Every verdict, drop, alert, mode change and limit change row matches the journal entry
 * of its kind in the same order, and no row is left over; the items the journal decided or dropped
 * left the queue that way and no other item did. A queue created before its journal existed leads
 * each table with exactly the rows the state row counts as older than the journal (fixed at
 * migration); those are accepted unjournaled, checked only for what they can be (as many as counted,
 * their items decided or dropped as they say), and reported in `preJournal`. The first problem is
 * reported: the chain's (`firstBad`) before a table's (`disagreement`), as if the chain were checked
 * whole first. `driveSync` runs it inside SQLite's read transaction, `driveAsync` inside PostgreSQL's
 * REPEATABLE READ one.
 */
export function* verifyQueue(signatures?: JournalSignatureOptions): Steps<QueueStore, JournalVerification> {
  const state = yield* ask((store) => store.state());
  const chain = new JournalChain(signatures);
  const cursors = new Map<JournalType, TableCursor>();
  for (const [type, kind] of Object.entries(KINDS) as [JournalType, Kind][]) cursors.set(type, new TableCursor(kind));
  const positions = new Map<JournalType, number>();
  const latest: Latest = {};
  let entries = 0;
  // The first row that disagrees is reported before the first item that does, as one pass over the
  // rows and then one over the items would find them.
  let rowBad: TableDisagreement | undefined;
  let itemBad: TableDisagreement | undefined;
  const before: Before = {};
  /** Filter rules the journal added so far, and whether each is enabled: a rule's verdict must name an enabled one. */
  const rules = new Map<string, boolean>();
  let ruleBad: TableDisagreement | undefined;
  for (const cursor of cursors.values()) {
    const count = state?.preJournal[cursor.kind.table] ?? 0;
    if (count === 0) continue;
    const skipped = yield* skipPreJournal(cursor, count);
    rowBad ??= skipped.rowBad;
    itemBad ??= skipped.itemBad;
    if (cursor.kind.table === 'review_mode_changes') before.mode = skipped.last;
    if (cursor.kind.table === 'review_limit_changes') before.limit = skipped.last;
  }
  let after = -1;
  for (;;) {
    const page = yield* ask((store) => store.journal(after, PAGE));
    const ended: Ended[] = [];
    for (const row of page) {
      const bad = chain.next(row);
      if (bad !== undefined) return bad;
      after = row.seq;
      entries += 1;
      const entry = chain.entry(row);
      // An entry that does not parse is the journal's problem (`chain.end` says it), not the tables'.
      if (entry === undefined) continue;
      if (entry.type === 'mode_change') latest.mode = entry;
      if (entry.type === 'limit_change') latest.limit = entry;
      if (entry.type === 'settings') {
        latest.settings = entry;
        latest.firstSettings ??= entry;
      }
      if (entry.type === 'filter_rule') {
        latest.settings = entry;
        rules.set(entry.data.rule.id, entry.data.rule.enabled);
      }
      const says = `journal entry ${entry.seq}`;
      if (entry.type === 'verdict') {
        ended.push({ id: entry.data.itemId, expected: 'decided', says, seq: entry.seq });
        ruleBad ??= checkRuleVerdict(entry, rules);
      }
      if (entry.type === 'drop') ended.push({ id: entry.data.item.id, expected: 'dropped', says, seq: entry.seq });
      const cursor = cursors.get(entry.type);
      // Past the first disagreeing row the chain is still checked to its end, the rows no more.
      if (cursor === undefined || rowBad !== undefined) continue;
      const position = (positions.get(entry.type) ?? 0) + 1;
      positions.set(entry.type, position);
      rowBad = checkRow(entry, cursor.kind, position, yield* cursor.next());
      cursor.matched += 1;
    }
    if (itemBad === undefined && ended.length > 0) itemBad = yield* checkItems(ended);
    if (page.length < PAGE) break;
  }
  const result = chain.end(state?.head ?? EMPTY_JOURNAL);
  if (!result.ok) return result;
  let disagreement = rowBad ?? (yield* leftOver(cursors)) ?? itemBad ?? ruleBad ?? (yield* unexplained());
  disagreement ??= checkState(state, entries, latest, before);
  if (disagreement === undefined && state !== undefined && Object.keys(state.counters).length > 0)
    disagreement = checkCounters(state.counters, yield* ask((store) => store.counts()));
  const counted = state?.preJournal ?? {};
  const preJournal = Object.values(counted).some((count) => count > 0) ? { preJournal: counted } : {};
  return disagreement === undefined ? { ...result, ...preJournal } : { ...result, ...preJournal, ok: false, disagreement };
}

/**
 * Steps past the `count` leading rows of a table recorded before the journal. There must be that many,
 * and a verdict's or drop's item must have left the queue as the row says; beyond that nothing proves
 * them. Returns the last one: the mode or attempt limit the journal's story starts from.
 */
function* skipPreJournal(
  cursor: TableCursor,
  count: number,
): Steps<QueueStore, { last?: Readonly<Record<string, unknown>>; rowBad?: TableDisagreement; itemBad?: TableDisagreement }> {
  const { table, noun } = cursor.kind;
  const ends = ENDS[table];
  const says = `its row in ${table} from before the journal`;
  let last: Readonly<Record<string, unknown>> | undefined;
  let itemBad: TableDisagreement | undefined;
  let ended: Ended[] = [];
  while (cursor.skipped < count) {
    const row = yield* cursor.next();
    if (row === undefined) {
      const rowBad = {
        table,
        detail: `${table} holds ${cursor.skipped} ${noun}s, but review_state counts ${count} recorded before the journal`,
      };
      return { ...(last === undefined ? {} : { last }), rowBad };
    }
    cursor.skipped += 1;
    last = row;
    if (ends !== undefined) ended.push({ ...ends(row), says });
    if (ended.length === PAGE || cursor.skipped === count) {
      if (itemBad === undefined && ended.length > 0) itemBad = yield* checkItems(ended);
      ended = [];
    }
  }
  return { ...(last === undefined ? {} : { last }), ...(itemBad === undefined ? {} : { itemBad }) };
}

/** The items a page of journal entries (or of rows from before the journal) decided or dropped, each left the queue that way. */
function* checkItems(ended: readonly Ended[]): Steps<QueueStore, TableDisagreement | undefined> {
  const found = yield* ask((store) => store.itemStates(ended.map((item) => item.id)));
  // An item still in the queue is, as far as the journal's check goes, simply not decided or dropped.
  const states = new Map(found.filter((item) => item.state !== 'open').map((item) => [item.id, item.state]));
  const wrong = ended.find((item) => states.get(item.id) !== item.expected);
  if (wrong === undefined) return undefined;
  const state = states.get(wrong.id);
  return {
    table: 'review_items',
    ...(wrong.seq === undefined ? {} : { seq: wrong.seq }),
    detail: `item ${wrong.id} is ${state ?? `not ${wrong.expected}`} in review_items, but ${wrong.says} says ${wrong.expected}`,
  };
}

function checkRow(
  entry: JournalEntry,
  kind: Kind,
  position: number,
  row: Readonly<Record<string, unknown>> | undefined,
): TableDisagreement | undefined {
  const key = kind.key?.(entry.data);
  const name = key === undefined ? `${kind.noun} ${position}` : `${kind.noun} ${key}`;
  if (row === undefined || (kind.key !== undefined && kind.key(row) !== key))
    return { table: kind.table, seq: entry.seq, detail: `${name} of journal entry ${entry.seq} is missing from ${kind.table}` };
  const field = firstDifference(kind.project(entry.data), kind.project(row));
  return field === undefined
    ? undefined
    : { table: kind.table, seq: entry.seq, detail: `${name} in ${kind.table} differs from journal entry ${entry.seq}: ${field}` };
}

/** A row past the last one the journal records, in any table. */
function* leftOver(cursors: ReadonlyMap<JournalType, TableCursor>): Steps<QueueStore, TableDisagreement | undefined> {
  for (const cursor of cursors.values()) {
    const extra = yield* cursor.next();
    if (extra === undefined) continue;
    const { table, noun, key } = cursor.kind;
    if (key !== undefined) return { table, detail: `${table} holds ${noun} ${key(extra)}, which no journal entry records` };
    let stored = cursor.skipped + cursor.matched + 1;
    while ((yield* cursor.next()) !== undefined) stored += 1;
    const older = cursor.skipped === 0 ? '' : ` and ${cursor.skipped} predate it`;
    return { table, detail: `${table} holds ${stored} ${noun}s, the journal records ${cursor.matched}${older}` };
  }
  return undefined;
}

/**
 * An item decided or dropped that no journal entry ended: with the verdict and drop rows proven one to
 * one against the journal, that is an item without its row.
 */
function* unexplained(): Steps<QueueStore, TableDisagreement | undefined> {
  const item = yield* ask((store) => store.unexplainedItem());
  return item === undefined
    ? undefined
    : { table: 'review_items', detail: `item ${item.id} is ${item.state} in review_items, but no journal entry says so` };
}

/** A verdict a filter rule gave names a rule the journal added before it and had enabled. */
function checkRuleVerdict(entry: TypedJournalEntry<'verdict'>, rules: ReadonlyMap<string, boolean>): TableDisagreement | undefined {
  const ruleId = ruleIdOf(entry.data.reviewer);
  if (ruleId === undefined || rules.get(ruleId) === true) return undefined;
  const why = rules.has(ruleId) ? 'which was disabled then' : 'which no earlier journal entry added';
  return {
    table: 'review_verdicts',
    seq: entry.seq,
    detail: `the verdict of journal entry ${entry.seq} names filter rule ${ruleId}, ${why}`,
  };
}

function checkState(state: StoredState | undefined, entries: number, latest: Latest, before: Before): TableDisagreement | undefined {
  if (state === undefined)
    return entries === 0
      ? undefined
      : { table: 'review_state', detail: `review_state has no row, but the journal holds ${entries} entries` };
  const { mode, limit, settings, firstSettings: first } = latest;
  // Without a journaled change, the mode and limit are where the last change from before the journal left them.
  const expectedMode = String(mode?.data.to ?? before.mode?.to ?? 'normal');
  if (state.mode !== expectedMode) {
    const says =
      mode !== undefined
        ? `the journal's entry ${mode.seq}`
        : before.mode !== undefined
          ? 'the last mode change before the journal'
          : "the journal's start";
    return { table: 'review_state', ...seqOf(mode), detail: `the mode is ${state.mode} in review_state, but ${says} says ${expectedMode}` };
  }
  const initial = first?.data.to?.tuner?.initial;
  const expectedLimit = limit?.data.to ?? before.limit?.to ?? initial;
  if (expectedLimit !== undefined && state.attemptLimit !== expectedLimit) {
    const says =
      limit === undefined && before.limit !== undefined
        ? 'the last limit change before the journal'
        : `journal entry ${(limit ?? first)?.seq}`;
    return {
      table: 'review_state',
      ...seqOf(limit ?? (before.limit === undefined ? first : undefined)),
      detail: `the attempt limit is ${state.attemptLimit} in review_state, but ${says} says ${String(expectedLimit)}`,
    };
  }
  if (settings !== undefined && (state.settings === null || canonicalJson(parse(state.settings)) !== canonicalJson(settings.data.to))) {
    return {
      table: 'review_state',
      seq: settings.seq,
      detail: `the settings in review_state are not the ones journal entry ${settings.seq} put in force`,
    };
  }
  return undefined;
}

const COUNTERS: readonly [keyof QueueCounters, string, (n: number) => string][] = [
  ['depth', 'the depth', (n) => `review_items holds ${n} open items`],
  ['verdicts', 'the verdict count', (n) => `review_verdicts holds ${n}`],
  ['approved', 'the approval count', (n) => `review_verdicts holds ${n} approvals`],
  ['dropped', 'the drop count', (n) => `review_breaker_log holds ${n}`],
  ['alerts', 'the alert count', (n) => `review_alerts holds ${n}`],
];

/** The counters a state row (read whole) keeps: those of its columns named like one. */
export function countersOf(row: Readonly<Record<string, unknown>>): Partial<QueueCounters> {
  const counters: Partial<Record<keyof QueueCounters, number>> = {};
  for (const [field] of COUNTERS) if (row[field] !== undefined && row[field] !== null) counters[field] = Number(row[field]);
  return counters;
}

/** Each running counter of the state row against the count it stands for. */
function checkCounters(kept: Partial<QueueCounters>, counted: QueueCounters): TableDisagreement | undefined {
  for (const [field, what, holds] of COUNTERS) {
    if (kept[field] !== undefined && kept[field] !== counted[field])
      return { table: 'review_state', detail: `${what} is ${kept[field]} in review_state, but ${holds(counted[field])}` };
  }
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
