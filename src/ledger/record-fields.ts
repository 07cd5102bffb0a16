import { z } from 'zod';
import type { Acceptance } from '../core/acceptance.js';
import type { Brief } from '../core/brief.js';
import { OMITTED_REASONS } from '../core/brief-baseline.js';
import type { Candidate } from '../core/candidate.js';
import type { Finding } from '../core/finding.js';
import { OUTCOMES } from '../core/outcome.js';
import type { ShadowResult } from '../core/shadow-verdict.js';
import type { TestInventory } from '../core/test-inventory.js';
import type { AttemptSummary, RunCounters, StopVerdict } from '../guards/guard.js';
import type { HandoffPlan } from '../handoff/handoff.js';
import type { PidNamespace } from '../process/pid-namespace.js';
import type { ProposerIdentity, Usage } from '../proposers/proposer.js';

// The parts run records are made of, as schemas that parse them back from storage. Each object keeps the
// fields it does not name (`looseObject`), so nothing a record holds is lost by reading it; a field added
// over time is optional, so a record an earlier version wrote still parses. Where a part is a type of a
// lower layer, the schema is declared as that type, so the compiler holds the two together.

const opt = z.exactOptional;
const strings = z.array(z.string()).readonly();

export const outcomeSchema = z.enum(OUTCOMES as readonly [(typeof OUTCOMES)[number], ...(typeof OUTCOMES)[number][]]);
export const verificationSchema = z.enum(['verified', 'sampled', 'unverified']);

const locationSchema = z.looseObject({ file: z.string().optional(), line: z.number().optional(), test: z.string().optional() });

export const findingSchema: z.ZodType<Finding> = z.looseObject({
  check: z.string(),
  stage: z.enum(['fast', 'promotion']),
  tier: z.enum(['format', 'demand', 'semantic']),
  status: z.enum(['pass', 'fail', 'error', 'skipped']),
  reasonCodes: strings,
  message: z.string(),
  location: opt(locationSchema),
  evidenceRef: opt(z.string()),
  skipReason: opt(z.string()),
  score: opt(z.number()),
  durationMs: opt(z.number()),
});
export const findingsSchema = z.array(findingSchema).readonly();

export const candidateSchema: z.ZodType<Candidate> = z.looseObject({
  files: z.record(z.string(), z.string().nullable()),
  value: opt(z.unknown()),
  footprint: strings,
  hash: z.string(),
});

export const attemptSummarySchema: z.ZodType<AttemptSummary> = z.looseObject({
  attempt: z.number(),
  candidateHash: z.string(),
  signature: z.string(),
  rejection: z.string(),
  score: opt(z.number()),
  failing: z.number(),
  failed: z.boolean(),
  infraError: z.boolean(),
  progress: z.boolean(),
  noChange: opt(z.literal(true)),
});

export const countersSchema: z.ZodType<RunCounters> = z.looseObject({
  attempts: z.number(),
  inputTokens: z.number(),
  outputTokens: z.number(),
  costUsd: z.number(),
  elapsedMs: z.number(),
  sinceProgress: z.number(),
  failedRounds: z.number(),
});

/** The loop's frontier (loop/progress.ts) as recorded. */
export interface FrontierData {
  readonly completed: readonly string[];
  readonly failing: readonly string[];
  readonly hardFailing: readonly string[];
  readonly footprint: number;
  readonly bestScore?: number;
}

export const frontierSchema: z.ZodType<FrontierData> = z.looseObject({
  completed: strings,
  failing: strings,
  hardFailing: strings,
  footprint: z.number(),
  bestScore: opt(z.number()),
});

export const stopVerdictSchema: z.ZodType<StopVerdict> = z.looseObject({
  guard: z.string(),
  reason: z.string(),
  detail: z.string(),
  outcome: outcomeSchema,
});

/** A judge's decision (judge/judge.ts) as recorded. */
export interface DecisionData {
  readonly transition: 'retry' | 'accept' | 'noop' | 'block' | 'fail';
  readonly reason: string;
  readonly cites?: readonly string[];
  readonly detail?: string;
}

export const decisionSchema: z.ZodType<DecisionData> = z.looseObject({
  transition: z.enum(['retry', 'accept', 'noop', 'block', 'fail']),
  reason: z.string(),
  cites: opt(strings),
  detail: opt(z.string()),
});

/** Why the runtime refused a judge's decision (judge/validate-decision.ts), as recorded. */
export interface RejectionData {
  readonly code: string;
  readonly message: string;
}

export const rejectionSchema: z.ZodType<RejectionData> = z.looseObject({ code: z.string(), message: z.string() });

export const acceptanceSchema: z.ZodType<Acceptance> = z.looseObject({
  acceptable: z.boolean(),
  hasDemand: z.boolean(),
  problems: strings,
});

const briefFindingSchema = z.looseObject({
  check: z.string(),
  status: z.enum(['fail', 'error']),
  reasonCodes: strings,
  message: z.string(),
  location: opt(locationSchema),
});

export const briefSchema: z.ZodType<Brief> = z.looseObject({
  runId: z.string(),
  task: z.string(),
  priority: z.number(),
  finalOutput: z.looseObject({
    files: z.record(z.string(), z.string().nullable()),
    value: opt(z.unknown()),
    baseline: opt(
      z.record(z.string(), z.union([z.string(), z.null(), z.looseObject({ omitted: z.enum(OMITTED_REASONS), bytes: z.number() })])),
    ),
  }),
  cutoffReason: z.string(),
  lastError: opt(z.string()),
  attempts: z.number(),
  verification: verificationSchema,
  failing: opt(z.array(briefFindingSchema)),
  failingOmitted: opt(z.number()),
  stripped: opt(z.array(z.looseObject({ pattern: z.string(), count: z.number() }))),
});

export const shadowSchema: z.ZodType<ShadowResult> = z.looseObject({
  verdict: z.enum(['pass', 'fail', 'error']),
  findings: findingsSchema,
});

export const handoffPlanSchema: z.ZodType<HandoffPlan> = z.looseObject({
  mode: z.enum(['normal', 'degraded']),
  attemptLimit: z.number(),
  maxAttempts: z.number(),
  tags: strings,
});

export const proposerIdentitySchema: z.ZodType<ProposerIdentity> = z.looseObject({
  kind: z.string(),
  name: z.string(),
  template: opt(z.string()),
  label: opt(z.literal(true)),
});

/** Who ran a run: recovery tells a crashed run from a live one by it. */
export const ownerSchema = z.looseObject({ host: opt(z.string()), pid: opt(z.number()) });

/** Whether the run's programs ran in PID namespaces of their own there, and if not why (docs/architecture.md, 'Processes'). */
export const pidNamespaceSchema: z.ZodType<PidNamespace> = z.union([
  z.looseObject({ available: z.literal(true), via: z.enum(['unshare', 'bwrap']) }),
  z.looseObject({ available: z.literal(false), reason: z.string() }),
]);

/** What the last reset of the check copy cost (`WorkCopy` report). */
export const isolationSchema = z.record(z.string(), z.number());

const inventorySchema: z.ZodType<TestInventory> = z.looseObject({
  cases: z.array(z.looseObject({ id: z.string(), status: z.enum(['pass', 'fail', 'skip', 'todo']), file: opt(z.string()) })).readonly(),
});

/** The test inventory of each test-runner check on the baseline, by check name. */
export const inventoriesSchema = z.record(z.string(), inventorySchema);

/** Tokens and cost one attempt spent, as the proposer reported them. */
export const usageSchema: z.ZodType<Usage> = z.looseObject({
  inputTokens: z.number().optional(),
  outputTokens: z.number().optional(),
  costUsd: z.number().optional(),
});
