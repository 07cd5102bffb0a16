import { backpressure, type QueueMode } from '../../review/backpressure.js';
import { tuneLimit } from '../../review/feedback-tuner.js';
import type { Uniform } from '../prng.js';
import { HANDOFF_MODEL, MAX_PRIORITY, qualityOf, type HandoffConfig, type HandoffModel, type QualityWeights } from './model.js';
import { FifoQueue, ProtocolQueue, type QueueItem, type StudyQueue } from './queues.js';

/** `simple`: FIFO with overflow; `protocol`: the review queue's watermarks, degraded mode and priority drops. */
export type HandoffVariant = 'simple' | 'protocol';

export const HANDOFF_VARIANTS: readonly HandoffVariant[] = Object.freeze(['simple', 'protocol']);

/**
 * One independent uniform stream per kind of draw, so that both variants of a configuration see the same
 * bursts, and the n-th produced item the same quality draw and priority.
 */
export interface HandoffStreams {
  readonly burst: Uniform;
  readonly quality: Uniform;
  readonly priority: Uniform;
  readonly approval: Uniform;
}

/** One simulated minute, as it stood at the end of the minute. */
export interface MinuteRecord {
  readonly minute: number;
  readonly burst: boolean;
  readonly produced: number;
  /** Depth after the minute's arrivals, before its reviews: the most the queue held this minute. */
  readonly peakDepth: number;
  readonly depth: number;
  readonly mode: QueueMode;
  readonly limit: number;
}

/** An item that did not reach a reviewer: overflowed (simple) or dropped and written to the circuit-breaker log (protocol). */
export interface Drop {
  readonly item: QueueItem;
  readonly minute: number;
  /** Queue depth when the item arrived that caused the drop. */
  readonly depth: number;
}

/** An item a reviewer decided. */
export interface Review {
  readonly item: QueueItem;
  readonly minute: number;
  /** Minutes from arrival to review; 0 when reviewed in the minute it arrived. */
  readonly wait: number;
  readonly approved: boolean;
}

/** Everything one configuration in one variant did. */
export interface HandoffTrace {
  readonly config: HandoffConfig;
  readonly variant: HandoffVariant;
  readonly capacity: number;
  readonly minutes: readonly MinuteRecord[];
  readonly drops: readonly Drop[];
  readonly reviews: readonly Review[];
  /** Items produced in degraded mode. */
  readonly drafts: number;
  /**
   * Agent attempts spent producing the arrivals. A queued item is a run cut off without an objective
   * signal, so a refined run used the whole attempt limit of its time; a draft used one attempt.
   */
  readonly attempts: number;
  readonly modeChanges: number;
  /** `[0, initial]`, then `[minute, limit]` at every change. */
  readonly limitTrajectory: readonly (readonly [number, number])[];
}

export interface SimulateHandoffOptions {
  readonly config: HandoffConfig;
  readonly variant: HandoffVariant;
  readonly minutes: number;
  readonly capacity: number;
  /** Quality of degraded-mode drafts. */
  readonly draftWeights: QualityWeights;
  readonly streams: HandoffStreams;
  /** Burst factor, quality weights, approve probabilities, watermarks and tuner. @default HANDOFF_MODEL */
  readonly model?: HandoffModel;
}

/**
 * The per-minute model (docs/experiments.md): the agents produce (a burst triples it), each arriving item is
 * offered to the queue, the reviewers take their rate and decide, then the feedback tuner reads the last
 * verdicts. The protocol's drops and mode switches and the tuner are the review queue's own pure policy
 * modules. In the protocol variant an item produced while the queue is degraded is a draft.
 */
export function simulateHandoff({
  config,
  variant,
  minutes,
  capacity,
  draftWeights,
  streams,
  model = HANDOFF_MODEL,
}: SimulateHandoffOptions): HandoffTrace {
  const { burstFactor, qualityWeights, approveProbability, watermarks, tuner } = model;
  const queue: StudyQueue =
    variant === 'simple' ? new FifoQueue({ capacity }) : new ProtocolQueue(backpressure({ capacity, ...watermarks }));
  const records: MinuteRecord[] = [];
  const drops: Drop[] = [];
  const reviews: Review[] = [];
  const verdicts: boolean[] = [];
  let limit = tuner.initial;
  const limitTrajectory: [number, number][] = [[0, limit]];
  let seq = 0;
  let drafts = 0;
  let attempts = 0;

  for (let minute = 1; minute <= minutes; minute += 1) {
    const burst = streams.burst() < config.burstProbability;
    const produced = config.productionRate * (burst ? burstFactor : 1);
    for (let index = 0; index < produced; index += 1) {
      // The mode when the run starts decides whether it refines or drafts; the simple queue is always normal.
      const draft = queue.mode === 'degraded';
      if (draft) drafts += 1;
      attempts += draft ? 1 : limit;
      const quality = qualityOf(streams.quality(), draft ? draftWeights : qualityWeights);
      const priority = Math.floor(streams.priority() * (MAX_PRIORITY + 1));
      const depth = queue.depth;
      const dropped = queue.offer({ seq: seq++, arrivedAt: minute, quality, priority, draft });
      if (dropped !== undefined) drops.push({ item: dropped, minute, depth });
    }
    const peakDepth = queue.depth;
    for (let index = 0; index < config.reviewRate; index += 1) {
      const item = queue.take(minute);
      if (item === undefined) break;
      const approved = streams.approval() < approveProbability[item.quality];
      reviews.push({ item, minute, wait: minute - item.arrivedAt, approved });
      verdicts.push(approved);
      // The tuner reads only the last window.
      if (verdicts.length > tuner.window) verdicts.shift();
    }
    // The model runs the tuner every minute once a window exists, whether or not the minute brought verdicts.
    const next = tuneLimit({ limit, verdicts, policy: tuner });
    if (next !== limit) limitTrajectory.push([minute, next]);
    limit = next;
    records.push({ minute, burst, produced, peakDepth, depth: queue.depth, mode: queue.mode, limit });
  }
  return { config, variant, capacity, minutes: records, drops, reviews, drafts, attempts, modeChanges: queue.modeChanges, limitTrajectory };
}
