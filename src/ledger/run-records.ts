import { z } from 'zod';
import { proposerAccountSchema } from '../proposers/account-schema.js';
import type { ProposerIdentity } from '../proposers/proposer.js';
import { RecordParseError } from '../errors/record-parse-error.js';
import { handoffResultSchema } from '../handoff/handoff-result.js';
import {
  acceptanceSchema,
  attemptSummarySchema,
  briefSchema,
  candidateSchema,
  countersSchema,
  decisionSchema,
  findingsSchema,
  frontierSchema,
  handoffPlanSchema,
  inventoriesSchema,
  isolationSchema,
  outcomeSchema,
  ownerSchema,
  pidNamespaceSchema,
  proposerIdentitySchema,
  rejectionSchema,
  shadowSchema,
  stopVerdictSchema,
  usageSchema,
  verificationSchema,
} from './record-fields.js';

// The records a run writes, one schema per type, and the union `RunRecord` every reader gets from
// `parseRunRecord`. The loop builds records through the `…Data` types (a misspelled field does not
// compile); readers get them parsed, never cast. Records are stored as written: parsing reads the stored
// body and never changes it (hashes and signatures are over the stored bytes). A field an earlier version
// did not write is optional; a field the schema does not name is kept.

const opt = z.exactOptional;
const strings = z.array(z.string()).readonly();

/** The mission as `run.started` records it: the validated mission, whole. */
const recordedMissionSchema = z.looseObject({
  id: z.string(),
  taskType: z.string().optional(),
  goal: z.string().optional(),
  priority: z.number().optional(),
  baseDir: z.string().optional(),
  workspaceDir: z.string().optional(),
  brief: z.looseObject({ stripPatterns: strings.optional() }).optional(),
  budgets: z
    .looseObject({
      maxAttempts: z.number(),
      maxTokens: z.number().optional(),
      maxWallClock: z.number().optional(),
      maxCostUsd: z.number().optional(),
    })
    .optional(),
  progressWindow: z.number().optional(),
});

/** A run's plan (run/run-plan.ts) as recorded. */
export interface PlanData {
  readonly hash: string;
  readonly proposer: ProposerIdentity;
}

const planSchema: z.ZodType<PlanData> = z.looseObject({ hash: z.string(), proposer: proposerIdentitySchema });

const startedShape = {
  mission: recordedMissionSchema,
  missionHash: opt(z.string()),
  /** The run's plan (mission + proposer identity); runs recorded before plans: none. */
  plan: opt(planSchema),
  /** The sealed run this run resolves (a linked run) and the resolution note. */
  resolves: opt(
    z.looseObject({
      runId: z.string(),
      outcome: z.string().optional(),
      stopReason: z.string().optional(),
      planHash: opt(z.string()),
      note: opt(z.string()),
    }),
  ),
  /** The run whose same plan thrashed, run again with `forceSamePlan`. */
  samePlanForced: opt(z.looseObject({ runId: z.string(), stopReason: z.string().optional() })),
  proposer: opt(z.string()),
  judge: opt(z.string()),
  guards: opt(strings),
  checks: opt(
    z
      .array(
        z.looseObject({
          name: z.string(),
          stage: z.enum(['fast', 'promotion']),
          tier: z.enum(['format', 'demand', 'semantic']),
          required: z.boolean(),
        }),
      )
      .readonly(),
  ),
  approvals: opt(strings),
  /** How many attempt summaries the guards read: what a resumed run rebuilds. */
  lookback: opt(z.number()),
  owner: opt(ownerSchema),
  handoff: opt(handoffPlanSchema),
  workspace: opt(
    z.looseObject({
      manifest: z.string(),
      entries: z.number(),
      ignore: strings,
      snapshotMs: opt(z.number()),
      /** Files read and hashed by the snapshot (with a cache, only those whose stamp changed). */
      hashed: opt(z.number()),
      /** How the check copy was had: written with the snapshot, the cached one reset, or the cached one rewritten. */
      copy: opt(z.enum(['fresh', 'reused', 'rebuilt'])),
      restored: opt(z.number()),
      /** Large files of a fresh copy cloned from the workspace instead of written (reflinks). */
      cloned: opt(z.number().int().nonnegative()),
      cache: opt(z.enum(['busy', 'refused'])),
      linksOutside: opt(z.looseObject({ count: z.number(), paths: strings })),
    }),
  ),
  sandbox: opt(z.unknown()),
  pidNamespace: opt(pidNamespaceSchema),
  review: opt(z.enum(['requested', 'default', 'opted_out'])),
};

const resumedShape = {
  /** Records stored when the run resumed. */
  fromSeq: z.number(),
  /** The step the last record left to do. */
  next: z.enum(['baseline', 'decide', 'attempt', 'apply']),
  owner: opt(ownerSchema),
  pidNamespace: opt(pidNamespaceSchema),
};

const baselineShape = {
  findings: findingsSchema,
  frontier: frontierSchema,
  isolation: opt(isolationSchema),
  /** Every test case each test-runner check reported on the baseline: what every candidate's report must still hold. */
  inventories: opt(inventoriesSchema),
};

const attemptShape = {
  attempt: z.number(),
  candidate: opt(candidateSchema),
  usage: opt(usageSchema),
  findings: opt(findingsSchema),
  summary: opt(attemptSummarySchema),
  counters: opt(countersSchema),
  frontier: opt(frontierSchema),
  isolation: opt(isolationSchema),
  /** How the proposer's program ran (exit status, time, the tails of its output and transcript); attempts of other proposers, and older records: none. */
  account: opt(proposerAccountSchema),
};

const decisionShape = {
  /** 0 for the decision on the baseline. */
  attempt: z.number(),
  verdict: opt(stopVerdictSchema),
  decision: opt(decisionSchema),
  rejection: opt(rejectionSchema),
  /** The judge chose `retry` but a binding stop verdict sealed the run. */
  overridden: opt(z.boolean()),
  acceptance: opt(acceptanceSchema),
  /** The bounded working state when the decision was made: the attempts in the guards' window by number. */
  state: opt(z.looseObject({ counters: countersSchema, frontier: frontierSchema, recentAttempts: z.array(z.number()).readonly() })),
};

const sealedShape = {
  outcome: outcomeSchema,
  verification: verificationSchema,
  stopReason: z.string(),
  detail: opt(z.string()),
  guard: opt(z.string()),
  attempts: opt(z.number()),
  candidateHash: opt(z.string()),
  counters: opt(countersSchema),
  brief: opt(briefSchema),
  handoff: opt(handoffResultSchema),
  /** The snapshot's hashes of the candidate's files (for admission). */
  baseline: opt(z.looseObject({ manifest: z.string(), files: z.record(z.string(), z.string().nullable()) })),
  /** What the seal noticed about the live workspace (`workspace.changed_during_run`, `workspace.unreadable_at_seal`). */
  evidence: opt(
    z.array(z.looseObject({ code: z.string(), count: opt(z.number()), paths: opt(strings), message: opt(z.string()) })).readonly(),
  ),
  shadow: opt(shadowSchema),
  /** Checked by `checkSeal` from the stored body: a malformed one is a verification result, not a parse error. */
  signature: opt(z.unknown()),
};

/** What each record type's `data` holds, as the loop writes it. */
export type StartedData = z.infer<z.ZodObject<typeof startedShape>>;
export type ResumedData = z.infer<z.ZodObject<typeof resumedShape>>;
export type BaselineData = z.infer<z.ZodObject<typeof baselineShape>>;
export type AttemptData = z.infer<z.ZodObject<typeof attemptShape>>;
export type DecisionRecordData = z.infer<z.ZodObject<typeof decisionShape>>;
export type SealedData = z.infer<z.ZodObject<typeof sealedShape>>;

/** The `data` of each record type. */
export interface RunRecordData {
  'run.started': StartedData;
  'run.resumed': ResumedData;
  baseline: BaselineData;
  attempt: AttemptData;
  decision: DecisionRecordData;
  'run.sealed': SealedData;
}

/** Kinds of record a run writes, in the order they happen. */
export type RecordType = keyof RunRecordData;

/** One event of a run, of type `T`. `seq` starts at 0 for `run.started`; the seal is the last. */
export interface TypedRecord<T extends RecordType> {
  readonly runId: string;
  readonly seq: number;
  readonly type: T;
  /** Milliseconds since the epoch, by the run's clock. */
  readonly at: number;
  readonly data: RunRecordData[T];
}

/** A run's record, discriminated by `type`. */
export type RunRecord = { [T in RecordType]: TypedRecord<T> }[RecordType];

/** The records of one type, in order. */
export function recordsOf<T extends RecordType>(records: readonly RunRecord[], type: T): Extract<RunRecord, { type: T }>[] {
  return records.filter((record): record is Extract<RunRecord, { type: T }> => record.type === type);
}

/** What the loop says of a record it appends: its type and data (the ledger's writer adds run, seq and time). */
export type RunRecordBody = { [T in RecordType]: { readonly type: T; readonly data: RunRecordData[T] } }[RecordType];

const envelope = <T extends RecordType, S extends z.core.$ZodLooseShape>(type: T, shape: S) =>
  z.looseObject({ runId: z.string(), seq: z.number(), type: z.literal(type), at: z.number(), data: z.looseObject(shape) });

const runRecordSchema = z.discriminatedUnion('type', [
  envelope('run.started', startedShape),
  envelope('run.resumed', resumedShape),
  envelope('baseline', baselineShape),
  envelope('attempt', attemptShape),
  envelope('decision', decisionShape),
  envelope('run.sealed', sealedShape),
]);

/** The stored form {@link parseRunRecord} reads: the canonical body, and where it is stored. */
export interface StoredBody {
  readonly runId: string;
  readonly seq: number;
  readonly type: string;
  readonly body: string;
}

/**
 * Reads a stored record back as a typed {@link RunRecord}: its body parsed as JSON and checked against the
 * schema of its type.
 * @throws {RecordParseError} naming the run, the record's seq and type and the field that does not parse.
 */
export function parseRunRecord(stored: StoredBody): RunRecord {
  let json: unknown;
  try {
    json = JSON.parse(stored.body);
  } catch (error) {
    throw new RecordParseError({
      entry: 'run record',
      runId: stored.runId,
      seq: stored.seq,
      type: stored.type,
      path: '',
      problem: (error as Error).message,
    });
  }
  if (isRunRecord(json)) return json;
  const [issue] = runRecordSchema.safeParse(json).error?.issues ?? [];
  throw new RecordParseError({
    entry: 'run record',
    runId: stored.runId,
    seq: stored.seq,
    type: stored.type,
    path: issue === undefined ? '' : issue.path.map(String).join('.'),
    problem: issue?.message ?? 'does not parse',
  });
}

/**
 * Whether a value is a run record: checked by the schema and returned as read, so its keys keep the
 * stored order and nothing is copied.
 */
function isRunRecord(value: unknown): value is RunRecord {
  return runRecordSchema.safeParse(value).success;
}
