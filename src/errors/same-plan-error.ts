import { RedlineError } from './redline-error.js';

/**
 * A new run would rerun a plan that already thrashed on its mission: the newest sealed run of the same
 * mission with the same plan hash (mission + proposer identity) stopped by oscillation, a rejection repeat,
 * no progress or the human gate. Nothing was recorded. Change the plan and link the new run to the old
 * one (`resolves`), or rerun the same plan on purpose with `forceSamePlan` (recorded).
 */
export class SamePlanError extends RedlineError {
  readonly missionId: string;
  readonly planHash: string;
  /** The earlier run that ran this plan and thrashed. */
  readonly runId: string;
  readonly stopReason: string;

  constructor({
    missionId,
    planHash,
    runId,
    outcome,
    stopReason,
  }: {
    missionId: string;
    planHash: string;
    runId: string;
    outcome: string;
    stopReason: string;
  }) {
    super({
      code: 'run.same_plan',
      message: [
        `refused to rerun the same plan on mission ${missionId}: run ${runId} ran plan ${planHash.slice(0, 12)} (this mission and proposer) and was sealed ${outcome} / ${stopReason}, so it would loop the same way again.`,
        `To go on, change the plan (another proposer, model, agent or prompt, a changed mission, or another --plan-label) and start a linked run: --resolves ${runId} with a changed plan (library: runMission({ resolves, planLabel }));`,
        'or rerun this plan anyway with --force-same-plan (library: forceSamePlan: true), which the run records.',
      ].join('\n'),
    });
    this.name = 'SamePlanError';
    this.missionId = missionId;
    this.planHash = planHash;
    this.runId = runId;
    this.stopReason = stopReason;
  }
}
