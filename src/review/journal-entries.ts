import { z } from 'zod';
import { RecordParseError } from '../errors/record-parse-error.js';

// The entries of the review queue's journal, one schema per type, and the union `JournalEntry` the
// verifier reads them as (`parseJournalEntry`). The journal keeps what the queue wrote, whole: the schemas
// name the fields the verifier reads and keep the rest (`looseObject`), which it compares with the tables.

const mode = z.enum(['normal', 'degraded']);

const opt = z.exactOptional;
const strings = z.array(z.string()).readonly();

/** An alert as `alerts.ts` raises it (`Alert`), with its webhook's delivery when it had one. */
const alertSchema = z.looseObject({
  id: z.string(),
  kind: z.literal('budget_cap_share'),
  share: z.number(),
  threshold: z.number(),
  window: z.number(),
  cappedRunIds: strings,
  raisedAt: z.number(),
  webhook: opt(z.looseObject({ origin: z.string(), ok: z.boolean(), status: opt(z.number()), error: opt(z.string()), at: z.number() })),
});

const dataShapes = {
  /** The settings put in force (`to`), and those they replaced (`from`); `{}` when a memory queue started with none. */
  settings: z.looseObject({
    from: opt(z.unknown()),
    to: opt(z.looseObject({ tuner: opt(z.looseObject({ initial: opt(z.number()) })) })),
  }),
  verdict: z.looseObject({
    id: z.string(),
    itemId: z.string(),
    runId: z.string(),
    reviewer: z.string(),
    decision: z.enum(['approve', 'reject']),
    label: z.string(),
  }),
  /** The mode switch, with its cause: the item whose arrival or verdict moved the depth, or `settings`. */
  mode_change: z.looseObject({ from: mode, to: mode, depth: z.number(), at: z.number(), itemId: opt(z.string()) }),
  limit_change: z.looseObject({ from: z.number(), to: z.number(), approveRate: z.number(), verdictIds: strings }),
  /** The item dropped at capacity, whole, as the circuit-breaker log keeps it. */
  drop: z.looseObject({
    item: z.looseObject({ id: z.string(), runId: z.string(), priority: z.number() }),
    depth: z.number(),
    displacedBy: z.string(),
  }),
  alert: alertSchema,
  /**
   * A filter rule added, disabled or enabled by a reviewer: the rule as it now stands, and the settings
   * that put it in force (`to`, as a `settings` entry's), which the state row must hold.
   */
  filter_rule: z.looseObject({
    event: z.enum(['added', 'disabled', 'enabled']),
    by: z.string(),
    rule: z.looseObject({ id: z.string(), label: z.string(), action: z.enum(['return', 'reject']), enabled: z.boolean() }),
    to: z.looseObject({}),
  }),
  /**
   * A run admitted with `--force` over what admission refuses of its review (a failed shadow check, a
   * `sampled` run no reviewer approved): who, what it overrode, and where the candidate went.
   */
  admission: z.looseObject({
    runId: z.string(),
    by: z.string(),
    overrides: z.array(z.looseObject({ code: z.string(), reason: z.string() })),
    mode: z.string(),
    into: z.string(),
  }),
};

/** Kinds of journal entry. */
export type JournalType = keyof typeof dataShapes;

/** One journal entry read back, of type `T`. */
export interface TypedJournalEntry<T extends JournalType> {
  /** 0, 1, 2, … in append order. */
  readonly seq: number;
  readonly type: T;
  /** Milliseconds since the epoch. */
  readonly at: number;
  readonly data: z.infer<(typeof dataShapes)[T]>;
}

/** A journal entry read back, discriminated by `type`. */
export type JournalEntry = { [T in JournalType]: TypedJournalEntry<T> }[JournalType];

const entry = <T extends JournalType>(type: T) =>
  z.looseObject({ chain: z.literal('review'), seq: z.number(), type: z.literal(type), at: z.number(), data: dataShapes[type] });

const journalEntrySchema = z.discriminatedUnion('type', [
  entry('settings'),
  entry('verdict'),
  entry('mode_change'),
  entry('limit_change'),
  entry('drop'),
  entry('alert'),
  entry('filter_rule'),
  entry('admission'),
]);

/**
 * Reads a stored journal entry back, typed by its `type`.
 * @throws {RecordParseError} naming the entry's seq and type and the field that does not parse.
 */
export function parseJournalEntry(row: { readonly seq: number; readonly type: string; readonly body: string }): JournalEntry {
  const fail = (path: string, problem: string): RecordParseError =>
    new RecordParseError({ entry: 'journal entry', runId: '', seq: row.seq, type: row.type, path, problem });
  let json: unknown;
  try {
    json = JSON.parse(row.body);
  } catch (error) {
    throw fail('', (error as Error).message);
  }
  if (isJournalEntry(json)) return json;
  const [issue] = journalEntrySchema.safeParse(json).error?.issues ?? [];
  throw fail(issue === undefined ? '' : issue.path.map(String).join('.'), issue?.message ?? 'does not parse');
}

/** Whether a value is a journal entry: checked by the schema, returned as read (keys in stored order). */
function isJournalEntry(value: unknown): value is JournalEntry {
  return journalEntrySchema.safeParse(value).success;
}
