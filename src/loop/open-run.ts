import { EMPTY_CANDIDATE } from '../core/candidate.js';
import { redactCommands } from '../core/redact-command.js';
import { reasonCodeCount } from '../checks/check-span.js';
import { ownerInfo } from '../ledger/owner.js';
import { pidNamespace } from '../process/pid-namespace.js';
import { frontierOf } from '../state/working-state.js';
import { linksOutside } from '../workspace/links-outside.js';
import { checkCandidate } from './check-candidate.js';
import { ended } from '../run/judge-state.js';
import { decide, policyVerdict } from './decide.js';
import type { Ending } from '../run/ending.js';
import { checksBaseline, environmentVerdict } from './environment.js';
import { baselineChannel } from './inventories.js';
import type { LoopState, ResumeStep } from './loop-state.js';
import { checkContext, type RunContext } from './run-context.js';
import { standing } from './stopped-at.js';
import { unreachableVerdict } from './unreachable.js';

/** Where a step leaves the run: its state, and its ending once one ends it (none: the loop proposes next). */
export interface Stand {
  readonly state: LoopState;
  readonly ending?: Ending | undefined;
}

/** The run's first record in this process: `run.started` for a new run, `run.resumed` for a resumed one. */
export async function recordStart(context: RunContext): Promise<void> {
  const { recorder, mission, files, sandbox, options, start } = context;
  if (context.resumedFrom !== undefined) {
    const { next } = start;
    await recorder.append({
      type: 'run.resumed',
      data: {
        fromSeq: context.resumedFrom,
        next: typeof next === 'string' ? next : 'apply',
        owner: ownerInfo(),
        pidNamespace: await pidNamespace(),
      },
    });
    return;
  }
  await recorder.append({
    type: 'run.started',
    data: {
      // Recorded with the secrets of its commands redacted; the mission hash is over this form.
      mission: redactCommands(mission),
      missionHash: context.missionHash,
      plan: context.runPlan,
      ...context.admitted,
      proposer: context.proposer.name,
      judge: context.judge.name,
      guards: context.guards.map((guard) => guard.name),
      checks: context.checks.map(({ name, stage, tier, required }) => ({ name, stage, tier, required })),
      approvals: context.approvals,
      lookback: context.stepContext.lookback,
      owner: ownerInfo(),
      ...(context.handoffPlan === undefined ? {} : { handoff: context.handoffPlan }),
      ...(files === undefined
        ? {}
        : {
            workspace: {
              manifest: files.snapshot.hash,
              entries: files.snapshot.manifest.size,
              ignore: mission.ignore,
              snapshotMs: context.snapshotMs,
              ...files.report,
              ...linksOutside(files.snapshot.manifest),
            },
          }),
      ...(sandbox === undefined ? {} : { sandbox: mission.sandbox }),
      pidNamespace: await pidNamespace(),
      ...(options.review === undefined ? {} : { review: options.review }),
    },
  });
}

/**
 * Before any proposal: a mission no candidate in scope can satisfy ends at once (decided from the mission
 * and the snapshot alone, so a resumed run decides the same); with a required demand red line the baseline
 * is checked and judged — a red line that already holds needs no candidate (`noop`), a required check that
 * cannot run on it (environment) makes none help. A resumed run instead does the step its records left to do.
 */
export async function openRun(context: RunContext, state: LoopState, next: ResumeStep): Promise<Stand> {
  const { mission, checks, files } = context;
  if (typeof next === 'object') return { state, ending: ended(context, next.apply) };
  if (next === 'attempt') return { state };
  if (next === 'decide') {
    const verdict =
      state.working.attempt === 0
        ? environmentVerdict(checks, state.working.findings, mission.scope)
        : policyVerdict(context, state.working);
    // A resumed decision of attempt N is still attempt N under way; the baseline's comes before any.
    const underWay = state.working.attempt === 0 ? undefined : { attempt: state.working.attempt, candidate: state.working.candidate };
    return { state, ending: await standing(state, () => decide(context, state, verdict), underWay) };
  }
  const unreachable =
    files === undefined ? undefined : unreachableVerdict({ mission, inBaseline: (file) => files.snapshot.manifest.has(file) });
  if (unreachable !== undefined)
    return {
      state,
      ending: { outcome: unreachable.outcome, stopReason: unreachable.reason, detail: unreachable.detail, guard: unreachable.guard },
    };
  if (!checksBaseline(mission, checks)) return { state };
  return context.span.child({ name: 'redline.baseline', attributes: { 'redline.attempt.number': 0 } }, async (trace) => {
    const reported = baselineChannel();
    const checked = await standing(state, () =>
      checkCandidate({
        checks,
        candidate: EMPTY_CANDIDATE,
        context: checkContext(context, state, 0, reported.channel),
        files,
        now: context.now,
        trace,
      }),
    );
    const { required, promotion } = context.stepContext;
    const findings = checked.findings;
    const baselined: LoopState = {
      ...state,
      inventories: reported.recorded(),
      working: { ...state.working, findings, frontier: frontierOf(EMPTY_CANDIDATE, findings, required, promotion, undefined) },
    };
    trace.set({ 'redline.reason_codes.count': reasonCodeCount(findings) });
    const ending = await standing(baselined, async () => {
      await context.recorder.append({
        type: 'baseline',
        data: {
          findings,
          frontier: baselined.working.frontier,
          ...(checked.isolation === undefined ? {} : { isolation: checked.isolation }),
          ...(Object.keys(baselined.inventories).length === 0 ? {} : { inventories: baselined.inventories }),
        },
      });
      return decide(context, baselined, environmentVerdict(checks, findings, mission.scope), trace);
    });
    return { state: baselined, ending };
  });
}
