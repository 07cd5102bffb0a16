import { streamSeed, type RandomFactory } from '../prng.js';
import { round } from '../stats.js';
import { MAX_PRIORITY, type HandoffConfig } from './model.js';
import { resolveHandoffOptions, type HandoffStudyOptions } from './options.js';
import {
  HANDOFF_VARIANTS,
  simulateHandoff,
  type HandoffStreams,
  type HandoffTrace,
  type MinuteRecord,
  type HandoffVariant,
} from './simulate.js';

/** One configuration in one variant: what `redline study handoff --json` prints, one per array element. */
export interface HandoffRow {
  readonly config: string;
  readonly variant: HandoffVariant;
  /** Items produced (every produced item arrives at the queue). */
  readonly arrivals: number;
  /** Items that never reached a reviewer: overflowed (simple) or dropped by priority (protocol). */
  readonly dropped: number;
  /** `dropped` as a percentage of `arrivals`. */
  readonly overflowPct: number;
  readonly reviewed: number;
  /** Mean minutes from arrival to review over reviewed items (0 when none was reviewed). */
  readonly avgWaitMin: number;
  readonly maxWaitMin: number;
  readonly finalLimit: number;
  /** `[0, 5]`, then `[minute, limit]` at every change of the attempt limit. */
  readonly limitTrajectory: readonly (readonly [number, number])[];
  readonly productionRate: number;
  readonly reviewRate: number;
  readonly burstProbability: number;
  readonly capacity: number;
  readonly seed: number;
  readonly bursts: number;
  readonly approved: number;
  /** `approved` as a percentage of `reviewed`. */
  readonly approvePct: number;
  /** Items produced in degraded mode (one attempt, tagged `draft`). */
  readonly drafts: number;
  /** Agent attempts spent producing the arrivals: the attempt limit of the time per refined run, 1 per draft. */
  readonly agentAttempts: number;
  /** Minutes that ended in degraded mode. */
  readonly degradedMinutes: number;
  /** Runs of minutes that ended in degraded mode, `[first, last]` inclusive. */
  readonly degradedSpans: readonly (readonly [number, number])[];
  readonly modeChanges: number;
  /** Drops written whole to the circuit-breaker log: all of them under the protocol, none in the simple model. */
  readonly breakerLogged: number;
  /** Drops per priority, index = priority (0 lowest). */
  readonly droppedByPriority: readonly number[];
  /** Mean wait of reviewed items per priority, index = priority (0 when none was reviewed). */
  readonly avgWaitByPriority: readonly number[];
  readonly maxDepth: number;
  readonly finalDepth: number;
  /** Queue depth at the end of each minute; `depth[0]` = 0 is the start. */
  readonly depth: readonly number[];
}

/** What `runHandoffStudy` returns: configurations in order, each `simple` then `protocol`. */
export type HandoffStudy = readonly HandoffRow[];

/** FNV-1a of a configuration's name: its streams do not depend on which other configurations run. */
function nameHash(name: string): number {
  let hash = 0x811c9dc5;
  for (let index = 0; index < name.length; index += 1) hash = Math.imul(hash ^ name.charCodeAt(index), 0x01000193);
  return hash >>> 0;
}

function streams(random: RandomFactory, seed: number, config: HandoffConfig): HandoffStreams {
  const base = streamSeed(seed, nameHash(config.name));
  return {
    burst: random(streamSeed(base, 0)),
    quality: random(streamSeed(base, 1)),
    priority: random(streamSeed(base, 2)),
    approval: random(streamSeed(base, 3)),
  };
}

const mean = (values: readonly number[]): number =>
  values.length === 0 ? 0 : round(values.reduce((sum, value) => sum + value, 0) / values.length);
const percent = (part: number, whole: number): number => (whole === 0 ? 0 : round((100 * part) / whole));

function spans(minutes: readonly MinuteRecord[]): [number, number][] {
  const out: [number, number][] = [];
  for (const { minute, mode } of minutes) {
    if (mode !== 'degraded') continue;
    const last = out.at(-1);
    if (last !== undefined && last[1] === minute - 1) last[1] = minute;
    else out.push([minute, minute]);
  }
  return out;
}

/** Sums a trace up into its report row. */
export function summarize(trace: HandoffTrace, seed: number): HandoffRow {
  const { config, variant, minutes, drops, reviews, limitTrajectory } = trace;
  const arrivals = minutes.reduce((sum, minute) => sum + minute.produced, 0);
  const approved = reviews.filter((review) => review.approved).length;
  const waits = reviews.map((review) => review.wait);
  const priorities = Array.from({ length: MAX_PRIORITY + 1 }, (_, priority) => priority);
  return {
    config: config.name,
    variant,
    arrivals,
    dropped: drops.length,
    overflowPct: percent(drops.length, arrivals),
    reviewed: reviews.length,
    avgWaitMin: mean(waits),
    maxWaitMin: waits.reduce((max, wait) => Math.max(max, wait), 0),
    finalLimit: (limitTrajectory.at(-1) as readonly [number, number])[1],
    limitTrajectory: limitTrajectory.map(([minute, limit]) => [minute, limit] as const),
    productionRate: config.productionRate,
    reviewRate: config.reviewRate,
    burstProbability: config.burstProbability,
    capacity: trace.capacity,
    seed,
    bursts: minutes.filter((minute) => minute.burst).length,
    approved,
    approvePct: percent(approved, reviews.length),
    drafts: trace.drafts,
    agentAttempts: trace.attempts,
    degradedMinutes: minutes.filter((minute) => minute.mode === 'degraded').length,
    degradedSpans: spans(minutes),
    modeChanges: trace.modeChanges,
    breakerLogged: variant === 'protocol' ? drops.length : 0,
    droppedByPriority: priorities.map((priority) => drops.filter((drop) => drop.item.priority === priority).length),
    avgWaitByPriority: priorities.map((priority) =>
      mean(reviews.filter((review) => review.item.priority === priority).map((review) => review.wait)),
    ),
    maxDepth: minutes.reduce((max, minute) => Math.max(max, minute.peakDepth), 0),
    finalDepth: minutes.at(-1)?.depth ?? 0,
    depth: [0, ...minutes.map((minute) => minute.depth)],
  };
}

/**
 * The handoff study (docs/experiments.md): every configuration (A–D by default) in the simple per-minute model
 * and under the review queue's full protocol, on the same random streams. Deterministic: the same options give
 * the same rows, and a configuration's rows do not depend on which others run.
 *
 * @example
 * const rows = runHandoffStudy({ seed: 7 });
 * rows.find((row) => row.config === 'B' && row.variant === 'simple')?.overflowPct;
 */
export function runHandoffStudy(options: HandoffStudyOptions = {}): HandoffStudy {
  const { seed, minutes, configs, capacity, draftWeights, random, model } = resolveHandoffOptions(options);
  return configs.flatMap((config) =>
    HANDOFF_VARIANTS.map((variant) =>
      summarize(simulateHandoff({ config, variant, minutes, capacity, draftWeights, model, streams: streams(random, seed, config) }), seed),
    ),
  );
}
