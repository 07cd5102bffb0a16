import { LinkError } from '../errors/link-error.js';
import { SamePlanError } from '../errors/same-plan-error.js';
import type { Ledger, RunRow } from '../ledger/ledger.js';
import { RESOLVABLE } from '../ledger/run-link.js';
import { PLAN_EXHAUSTED_REASONS, type RunPlan } from '../run/run-plan.js';

export interface PlanAdmissionOptions {
  readonly ledger: Ledger;
  readonly missionId: string;
  readonly plan: RunPlan;
  /** The sealed run the new run resolves. */
  readonly resolves?: string | undefined;
  /** Why the new run should fare better (recorded with the link). */
  readonly note?: string | undefined;
  /** Run the plan even after it thrashed on this mission (recorded). */
  readonly forceSamePlan?: boolean | undefined;
}

/** The newest sealed run of a mission's plan: the ledger's indexed look-up, else its run list. */
async function latestSealed(ledger: Ledger, missionId: string, planHash: string): Promise<RunRow | undefined> {
  if (ledger.latestSealed !== undefined) return ledger.latestSealed({ missionId, planHash });
  // Filtered here too: a ledger written before these filters existed may ignore them.
  return (await ledger.runs({ missionId, planHash })).findLast(
    (run) => run.sealed && run.missionId === missionId && run.planHash === planHash,
  );
}

/** The run a new run resolves, checked: in the ledger, of the same mission, sealed blocked or failed. */
async function resolvedRun(ledger: Ledger, missionId: string, runId: string): Promise<RunRow> {
  const [run] = await ledger.runs({ runId });
  if (run === undefined)
    throw new LinkError({ runId, problem: 'unknown_run', message: `cannot resolve run ${runId}: it is not in this ledger` });
  if (!run.sealed)
    throw new LinkError({
      runId,
      problem: 'not_sealed',
      message: `cannot resolve run ${runId}: it is not sealed (recover or finish it first)`,
    });
  if (!RESOLVABLE.has(run.outcome ?? ''))
    throw new LinkError({
      runId,
      problem: 'not_resolvable',
      message: `cannot resolve run ${runId}: it was sealed ${run.outcome ?? 'without an outcome'}, and only a blocked or failed_with_evidence run is resolved by a linked run`,
    });
  if (run.missionId !== missionId)
    throw new LinkError({
      runId,
      problem: 'other_mission',
      message: `cannot resolve run ${runId}: it ran mission ${run.missionId}, not ${missionId}`,
    });
  return run;
}

/**
 * Decides, before anything is recorded, whether a new run may start with its plan, and returns what its
 * `run.started` record adds: the link to the run it resolves (with the note) and, when `forceSamePlan`
 * overrode a refusal, which run it overrode. The same plan is refused (`SamePlanError`) when the newest
 * sealed run of the mission with that plan hash — or the run it resolves, when that ran the same plan —
 * stopped by oscillation, a repeated output, rejection repeat, no progress or the human gate.
 * @throws {LinkError} when `resolves` names a run that cannot be resolved.
 * @throws {SamePlanError} when the plan thrashed on this mission and `forceSamePlan` is not set.
 */
export async function admitPlan({
  ledger,
  missionId,
  plan,
  resolves,
  note,
  forceSamePlan = false,
}: PlanAdmissionOptions): Promise<Record<string, unknown>> {
  if (resolves !== undefined && (typeof resolves !== 'string' || resolves === ''))
    throw new TypeError(`Expected resolves to be a run id, got ${JSON.stringify(resolves)}`);
  if (note !== undefined && typeof note !== 'string') throw new TypeError(`Expected note to be a string, got ${typeof note}`);
  if (note !== undefined && resolves === undefined)
    throw new TypeError('Expected resolves with note (a note explains a linked run), got note alone');
  const resolved = resolves === undefined ? undefined : await resolvedRun(ledger, missionId, resolves);
  const earlier = [resolved?.planHash === plan.hash ? resolved : undefined, await latestSealed(ledger, missionId, plan.hash)].find(
    (run): run is RunRow => run !== undefined && PLAN_EXHAUSTED_REASONS.has(run.stopReason ?? ''),
  );
  if (earlier !== undefined && !forceSamePlan)
    throw new SamePlanError({
      missionId,
      planHash: plan.hash,
      runId: earlier.runId,
      outcome: earlier.outcome ?? '',
      stopReason: earlier.stopReason ?? '',
    });
  return {
    ...(resolved === undefined
      ? {}
      : {
          resolves: {
            runId: resolved.runId,
            outcome: resolved.outcome,
            stopReason: resolved.stopReason,
            ...(resolved.planHash === undefined ? {} : { planHash: resolved.planHash }),
            ...(note === undefined ? {} : { note }),
          },
        }),
    ...(earlier === undefined ? {} : { samePlanForced: { runId: earlier.runId, stopReason: earlier.stopReason } }),
  };
}
