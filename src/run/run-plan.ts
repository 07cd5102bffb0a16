import { hash } from 'node:crypto';
import { missionHash, type Mission } from '../mission/mission.js';
import type { Proposer, ProposerIdentity } from '../proposers/proposer.js';
import { canonicalJson } from '../core/canonical-json.js';

/**
 * What a run tries: its mission and its proposer's identity. Recorded in `run.started` as `plan`; its hash
 * is not the check plan's hash (`planHash` in signature.ts), which state signatures use.
 */
export interface RunPlan {
  /** `sha256(canonical JSON of { missionHash, proposer })`, hex. */
  readonly hash: string;
  readonly proposer: ProposerIdentity;
}

/** Stop reasons after which the same plan is not run again on the mission: the loop thrashed on it (every stop of the thrash guards) or a human stopped it. */
export const PLAN_EXHAUSTED_REASONS: ReadonlySet<string> = new Set([
  'oscillation',
  'repeated_output',
  'reject_repeat',
  'no_progress',
  'human_gate',
]);

/** A proposer's identity, or `{ kind: 'custom', name }` for one that declares none. */
export function proposerIdentity(proposer: Proposer): ProposerIdentity {
  return proposer.identity ?? { kind: 'custom', name: proposer.name };
}

/** The hash of a run's plan: the mission's hash and the proposer's identity. */
export function runPlanHash({ missionHash, proposer }: { missionHash: string; proposer: ProposerIdentity }): string {
  return hash('sha256', canonicalJson({ missionHash, proposer }), 'hex');
}

/**
 * The plan of a run of `mission` by `proposer`. With a `label`, the label stands for what the proposer runs
 * (its kind and prompt template stay): runs under one label are one plan however their commands differ.
 * @throws {TypeError} when `label` is not a non-empty string.
 */
export function runPlanOf(mission: Mission, proposer: Proposer, { label }: { label?: string | undefined } = {}): RunPlan {
  if (label !== undefined && (typeof label !== 'string' || label.trim() === ''))
    throw new TypeError(`Expected the plan label to be a non-empty string, got ${JSON.stringify(label)}`);
  const own = proposerIdentity(proposer);
  const identity: ProposerIdentity =
    label === undefined
      ? own
      : { kind: own.kind, name: label, ...(own.template === undefined ? {} : { template: own.template }), label: true };
  return { hash: runPlanHash({ missionHash: missionHash(mission), proposer: identity }), proposer: identity };
}
