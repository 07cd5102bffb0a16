import { randomUUID } from 'node:crypto';
import { stat } from 'node:fs/promises';
import type { Check } from '../core/check.js';
import type { Finding } from '../core/finding.js';
import { buildChecks } from '../roles/build-checks.js';
import type { Mission } from '../mission/mission.js';
import { RunWorkspace } from '../workspace/run-workspace.js';
import { applyProposal, Baseline, EMPTY_CANDIDATE, type Candidate } from '../core/candidate.js';
import { environmentVerdict } from './environment.js';
import { checkCandidate } from './check-candidate.js';
import { skipAll } from '../checks/run-checks.js';
import { checkPlan, sandboxOf } from './run-setup.js';
import { unreachableVerdict } from './unreachable.js';

/**
 * What a reference candidate says of a mission, worst first: `environment` (a required check cannot run on
 * the baseline), `unreachable` (the reference does not pass every required check, or the mission is
 * unreachable by its scope), `too_broad` (every required demand check already passes on the baseline),
 * `weak_feedback` (a required check fails on the baseline without a specific reason code), `reachable`.
 */
export type ReachabilityStatus = 'environment' | 'unreachable' | 'too_broad' | 'weak_feedback' | 'reachable';

export interface ReachabilityReport {
  readonly mission: string;
  readonly status: ReachabilityStatus;
  /** Every required check ran and passed on baseline + reference. */
  readonly reachable: boolean;
  /** The mission has required demand checks and all of them pass on the unchanged baseline. */
  readonly tooBroad: boolean;
  /** Required format or demand checks that fail on the baseline with no reason code, or only unqualified ones. */
  readonly weakFeedback: readonly string[];
  /** One line per problem found, naming the check. */
  readonly problems: readonly string[];
  /** The reference as a candidate: what it changes against the workspace. */
  readonly candidate: { readonly footprint: readonly string[]; readonly hash: string };
  readonly baseline: readonly Finding[];
  readonly reference: readonly Finding[];
}

export interface CheckReachabilityOptions {
  /** A mission with a workspace. */
  readonly mission: Mission;
  /** A full tree written by a human: its difference from the workspace (outside the mission's `ignore`) is the candidate. */
  readonly reference: string;
  /** Custom checks, run after the mission's own (as `runMission`'s `checks`). */
  readonly checks?: readonly Check[];
  /** Where the snapshots and copies go (removed at the end). @default process.env.REDLINE_SCRATCH ?? os.tmpdir() */
  readonly scratchDir?: string;
  readonly signal?: AbortSignal;
}

/** A reason code that names what failed (`test.failed:adds`), not only that something did (`command.exit_nonzero`). */
const specific = (code: string): boolean => code.includes(':');

/** The reference tree's files that differ from the snapshot's, and the snapshot's files it lacks (null). */
function referenceChanges(workspace: RunWorkspace, reference: RunWorkspace): Record<string, string | null> {
  const files: Record<string, string | null> = {};
  for (const [file, entry] of reference.snapshot.manifest) {
    const before = workspace.snapshot.manifest.get(file);
    if (entry.type === 'file' && (before?.type !== 'file' || before.hash !== entry.hash)) files[file] = reference.snapshot.text(file);
  }
  for (const [file, entry] of workspace.snapshot.manifest) {
    if (entry.type === 'file' && reference.snapshot.manifest.get(file)?.type !== 'file') files[file] = null;
  }
  return files;
}

/**
 * Runs a mission's check plan on (a) its unchanged baseline and (b) baseline + a human-written reference
 * candidate, each in an isolated copy as a run would, and says whether the mission is reachable, too
 * broad or gives weak feedback. Nothing is recorded and the workspace is only read.
 * @throws {TypeError} for a mission without a workspace or a reference that is not a directory.
 * @example
 * const report = await checkReachability({ mission: await loadMission('mission.yaml'), reference: '../solved' });
 */
export async function checkReachability({
  mission,
  reference,
  checks: custom = [],
  scratchDir,
  signal = new AbortController().signal,
}: CheckReachabilityOptions): Promise<ReachabilityReport> {
  if (mission.workspaceDir === undefined) throw new TypeError(`Expected a mission with a workspace, got mission ${mission.id} without one`);
  if (
    !(await stat(reference).then(
      (info) => info.isDirectory(),
      () => false,
    ))
  )
    throw new TypeError(`Expected the reference to be a directory, got ${JSON.stringify(reference)}`);
  // The loop's plan: shadow checks never decide a run, so they say nothing of its reachability.
  const checks = checkPlan(mission, await buildChecks(mission), custom).filter((check) => check.shadow !== true);
  const start = (workspace: string) =>
    RunWorkspace.start({
      runId: `check-${randomUUID()}`,
      workspace,
      ignore: mission.ignore,
      ...(scratchDir === undefined ? {} : { scratchDir }),
    });
  const workspace = await start(mission.workspaceDir);
  try {
    const theirs = await start(reference);
    let changes: Record<string, string | null>;
    try {
      changes = referenceChanges(workspace, theirs);
    } finally {
      await theirs.dispose();
    }
    const problems: string[] = workspace.candidateProblems(changes).map((problem) => `the reference cannot be a candidate: ${problem}`);
    const candidate = applyProposal(EMPTY_CANDIDATE, changes, undefined, new Baseline((file) => workspace.snapshot.text(file)));
    const sandbox = sandboxOf(mission)?.checks;
    // Each check set as a run's: the scope first, then the check copy reset to exactly snapshot + candidate.
    const check = async (on: Candidate, attempt: number): Promise<Finding[]> =>
      (
        await checkCandidate({
          checks,
          candidate: on,
          context: { goal: mission.goal, attempt, signal, ...(sandbox === undefined ? {} : { sandbox }) },
          files: workspace,
        })
      ).findings;
    const baseline = await check(EMPTY_CANDIDATE, 0);
    const referenceFindings = problems.length > 0 ? skipAll(checks, 'bad_reference') : await check(candidate, 1);

    const required = checks.filter((item) => item.required);
    const passes = (findings: readonly Finding[], item: Check): boolean => {
      const own = findings.filter((finding) => finding.check === item.name);
      return own.length > 0 && own.every((finding) => finding.status === 'pass');
    };
    const reachable = problems.length === 0 && required.every((item) => passes(referenceFindings, item));
    for (const item of required.filter((each) => !passes(referenceFindings, each)))
      for (const finding of referenceFindings.filter((each) => each.check === item.name && each.status !== 'pass'))
        problems.push(
          `required check ${item.name} does not pass on the reference (${finding.status}: ${finding.reasonCodes.join(', ') || 'no reason code'})`,
        );
    const demand = required.filter((item) => item.tier === 'demand');
    const tooBroad = demand.length > 0 && demand.every((item) => passes(baseline, item));
    if (tooBroad)
      problems.push(`every required demand check passes on the unchanged baseline (${demand.map((item) => item.name).join(', ')})`);
    const weakFeedback = required
      .filter((item) => item.tier !== 'semantic')
      .filter((item) => {
        const failing = baseline.filter((finding) => finding.check === item.name && finding.status === 'fail');
        return failing.length > 0 && !failing.some((finding) => finding.reasonCodes.some(specific));
      })
      .map((item) => item.name);
    for (const name of weakFeedback)
      problems.push(`required check ${name} fails on the baseline without a specific reason code: attempts cannot show progress on it`);
    const environment = environmentVerdict(checks, baseline, mission.scope);
    if (environment !== undefined) problems.unshift(environment.detail);
    const unreachable = unreachableVerdict({ mission, inBaseline: (file) => workspace.snapshot.manifest.has(file) });
    if (unreachable !== undefined) problems.unshift(unreachable.detail);
    const status: ReachabilityStatus =
      environment !== undefined
        ? 'environment'
        : unreachable !== undefined || !reachable
          ? 'unreachable'
          : tooBroad
            ? 'too_broad'
            : weakFeedback.length > 0
              ? 'weak_feedback'
              : 'reachable';
    return {
      mission: mission.id,
      status,
      reachable,
      tooBroad,
      weakFeedback,
      problems,
      candidate: { footprint: candidate.footprint, hash: candidate.hash },
      baseline,
      reference: referenceFindings,
    };
  } finally {
    await workspace.dispose();
  }
}
