import { z } from 'zod';
import type { ModeChange, QueueMode } from '../review/backpressure.js';

const modeSchema = z.enum(['normal', 'degraded']);

/** The run did not need review: verified, or sampled but not drawn. */
export interface HandoffSkipped {
  readonly enqueued: false;
  readonly reason: 'verified' | 'not sampled';
}

/** The queue failed: the run stays in the ledger with its brief. */
export interface HandoffFailed {
  readonly enqueued: false;
  readonly reason: 'queue error';
  readonly error: string;
  readonly tags: readonly string[];
}

/** The queue took the run (`enqueued`), or dropped it on arrival at capacity (not enqueued, `dropped` says which). */
export interface HandoffQueued {
  readonly enqueued: boolean;
  readonly itemId?: string;
  readonly tags: readonly string[];
  /** The item dropped to make room, as written to the circuit-breaker log. */
  readonly dropped?: { readonly itemId: string; readonly runId: string; readonly priority: number };
  readonly mode: QueueMode;
  readonly modeChanged?: ModeChange;
}

/** What handing a sealed run to the review queue did: the seal record's `handoff`. */
export type HandoffResult = HandoffSkipped | HandoffFailed | HandoffQueued;

const skippedSchema: z.ZodType<HandoffSkipped> = z.looseObject({ enqueued: z.literal(false), reason: z.enum(['verified', 'not sampled']) });
const failedSchema: z.ZodType<HandoffFailed> = z.looseObject({
  enqueued: z.literal(false),
  reason: z.literal('queue error'),
  error: z.string(),
  tags: z.array(z.string()),
});
const queuedSchema: z.ZodType<HandoffQueued> = z.looseObject({
  enqueued: z.boolean(),
  itemId: z.exactOptional(z.string()),
  tags: z.array(z.string()),
  dropped: z.exactOptional(z.looseObject({ itemId: z.string(), runId: z.string(), priority: z.number() })),
  mode: modeSchema,
  modeChanged: z.exactOptional(z.looseObject({ from: modeSchema, to: modeSchema, depth: z.number(), at: z.number() })),
});

/** Parses a recorded {@link HandoffResult}: one that was skipped, failed, or asked the queue. */
export const handoffResultSchema: z.ZodType<HandoffResult> = z.union([skippedSchema, failedSchema, queuedSchema]);
