import { stat, writeFile } from 'node:fs/promises';
import {
  branchExists,
  commitBranch,
  lookUpHead,
  openRepository,
  validBranchName,
  type BranchCommit,
  type Repository,
  type TreeLookup,
} from '../workspace/git-branch.js';
import { contentHash } from '../workspace/manifest.js';
import { unifiedDiff } from '../workspace/unified-diff.js';
import { AdmitError } from '../errors/admit-error.js';
import { applyToDir, lookUpDir } from './admit-dir.js';
import { admitPathProblem, conflictReason, planAdmission, type Change, type Conflict, type Found, type Plan } from './admit-plan.js';
import { admissionSource, type AdmissionSource } from './admit-source.js';
import { reviewOfRun, type Approval, type ReviewItemLookup, type ReviewRefusal } from './admit-review.js';
import type { Ledger } from '../ledger/ledger.js';
import type { ForcedAdmission } from '../review/forced-admission.js';

export { AdmitError, type AdmitErrorCode, type AdmitProblem } from '../errors/admit-error.js';
export { conflictReason, type Conflict, type ConflictChange } from './admit-plan.js';
export type { Approval, ReviewItemLookup, ReviewRefusal } from './admit-review.js';

/** Where an admission puts the candidate. */
export type AdmissionMode = 'files' | 'patch' | 'git-branch';

export interface AdmitOptions {
  readonly ledger: Ledger;
  readonly runId: string;
  /**
   * The directory the candidate's files are written to; for `patch` and `gitBranch`, the directory whose
   * files (or whose git repository's HEAD) the change is made against.
   * @default the mission's workspace, for `patch` and `gitBranch` only
   */
  readonly dir?: string;
  /** Write the change as a unified diff to this file instead of writing files. */
  readonly patch?: string;
  /** Create this branch in `dir`'s git repository, at a commit on top of HEAD, instead of writing files. */
  readonly gitBranch?: string;
  /**
   * Admit over conflicts, a run recorded without baseline hashes, a failed shadow check, and a `sampled`
   * run no reviewer approved. @default false
   */
  readonly force?: boolean;
  /**
   * Looks up the review item a `sampled` run was enqueued as, in its ledger's review queue, for the
   * reviewer's verdict. Without it a sampled run has no approval.
   */
  readonly reviewItem?: ReviewItemLookup;
  /**
   * Records an admission `force` takes past the run's review (a failed shadow check, no approval) before
   * anything is written; if it throws, nothing is. `redline admit` journals it in the review queue
   * (`recordAdmission`). Returns the journal entry's `seq`.
   */
  readonly recordForced?: (admission: Omit<ForcedAdmission, 'by'>) => Promise<{ seq: number }>;
}

/** What an admission did. Paths are the candidate's, relative to `dir`. */
export interface Admission {
  readonly runId: string;
  readonly mode: AdmissionMode;
  readonly dir: string;
  /** Paths given the candidate's content: written, or written by the patch or the commit. */
  readonly written: readonly string[];
  /** Paths deleted (or deleted by the patch or the commit). */
  readonly deleted: readonly string[];
  /** Paths that already held the candidate's content: left as they are. */
  readonly unchanged: readonly string[];
  /** Conflicts `force` admitted over. */
  readonly forced: readonly Conflict[];
  /** False for a run recorded without baseline hashes, admitted with `force` and no conflict check. */
  readonly checked: boolean;
  /** The patch file written (`patch`). */
  readonly patch?: string;
  /** The branch and commit created (`gitBranch`), and the commit it is on. */
  readonly branch?: BranchCommit & { readonly parent: string };
  /** The live workspace changed while the run ran (the checks saw its snapshot): what the seal recorded. */
  readonly changedDuringRun?: { readonly count: number; readonly paths: readonly string[] };
  /** What `force` took the run past of its review: a failed shadow check, a sampled run no reviewer approved. */
  readonly overridden: readonly ReviewRefusal[];
  /** Where `recordForced` recorded the override: the review journal entry's `seq`. */
  readonly recorded?: { readonly seq: number };
  /** The reviewer who approved the `sampled` run. */
  readonly approval?: Approval;
}

function modeOf({ patch, gitBranch, dir }: AdmitOptions): AdmissionMode {
  if (patch !== undefined && gitBranch !== undefined) throw new TypeError('Expected one of patch or gitBranch, got both');
  if (patch === undefined && gitBranch === undefined && dir === undefined)
    throw new TypeError('Expected a directory to admit into, got none');
  return patch !== undefined ? 'patch' : gitBranch !== undefined ? 'git-branch' : 'files';
}

async function directoryOf(source: AdmissionSource, dir: string | undefined): Promise<string> {
  const target = dir ?? source.workspaceDir;
  if (target === undefined)
    throw new AdmitError({
      code: 'admit.no_directory',
      runId: source.runId,
      headline: `run ${source.runId}: its mission has no workspace; name the directory to admit against`,
    });
  if (
    !(await stat(target).then(
      (info) => info.isDirectory(),
      () => false,
    ))
  )
    throw new AdmitError({ code: 'admit.no_directory', runId: source.runId, headline: `${target} is not a directory` });
  return target;
}

/** Refuses, in this order, bad paths (always), conflicts and an unchecked run (unless `force`). */
function refuseUnlessClean(source: AdmissionSource, plan: Plan, where: string, force: boolean): void {
  const { runId } = source;
  if (plan.refused.length > 0) {
    throw new AdmitError({
      code: 'admit.bad_path',
      runId,
      headline: `run ${runId}: ${plan.refused.length} path(s) cannot be admitted into ${where}; nothing was written`,
      problems: plan.refused,
    });
  }
  if (force) return;
  if (plan.conflicts.length > 0) {
    const uncommitted = plan.conflicts.some(({ change }) => change === 'uncommitted');
    const differ = uncommitted ? 'differ from the files the run started from' : 'changed since the run started';
    throw new AdmitError({
      code: 'admit.conflict',
      runId,
      headline: `run ${runId}: ${plan.conflicts.length} path(s) of ${where} ${differ}; nothing was written (--force admits over them${uncommitted ? ', committing the uncommitted changes the run started from' : ''})`,
      problems: plan.conflicts.map(({ file, change }) => ({ file, reason: conflictReason(change) })),
    });
  }
  if (plan.unchecked.length > 0) {
    throw new AdmitError({
      code: 'admit.no_baseline',
      runId,
      headline: `run ${runId} was recorded without baseline hashes, so ${plan.unchecked.length} path(s) cannot be checked for changes made since it started; nothing was written (--force admits without the check)`,
      problems: plan.unchecked.map((file) => ({ file, reason: 'not checked' })),
    });
  }
}

/** What HEAD holds at a path, as a {@link Found}: only regular files can be replaced or read. */
function foundInHead(lookup: TreeLookup): Found {
  switch (lookup.kind) {
    case 'missing':
      return lookup;
    case 'below':
      if (lookup.type === 'blob' && (lookup.mode === 0o100644 || lookup.mode === 0o100755))
        return { kind: 'under_file', ancestor: lookup.ancestor };
      return {
        kind: 'refused',
        reason: `through ${JSON.stringify(lookup.ancestor)}, ${lookup.type === 'commit' ? 'a submodule' : 'a symlink'} in HEAD`,
      };
    case 'entry':
      if (lookup.bytes !== undefined) return { kind: 'file', bytes: lookup.bytes, mode: lookup.mode };
      return {
        kind: 'refused',
        reason: lookup.type === 'tree' ? 'a directory in HEAD' : lookup.type === 'commit' ? 'a submodule in HEAD' : 'a symlink in HEAD',
      };
  }
}

/**
 * The run's baseline was `dir`'s working tree, not HEAD: a conflict against HEAD where the working tree
 * still holds the baseline's file (or, like it, none) is the run having started from uncommitted
 * changes, not a change made since.
 */
function uncommittedAtStart(plan: Plan, dir: string, baseline: Readonly<Record<string, string | null>> | undefined): Plan {
  if (baseline === undefined || plan.conflicts.length === 0) return plan;
  const tree = lookUpDir(
    dir,
    plan.conflicts.map(({ file }) => file),
  );
  const hashOf = (at: Found | undefined): string | null | undefined =>
    at?.kind === 'file' ? contentHash(at.bytes) : at?.kind === 'missing' || at?.kind === 'under_file' ? null : undefined;
  const conflicts = plan.conflicts.map((conflict): Conflict =>
    hashOf(tree.get(conflict.file)) === (baseline[conflict.file] ?? null) ? { file: conflict.file, change: 'uncommitted' } : conflict,
  );
  return { ...plan, conflicts };
}

const sortedFiles = (changes: readonly Change[], deleted: boolean): string[] =>
  changes.filter(({ after }) => (after === null) === deleted).map(({ file }) => file);

async function branchInto(
  source: AdmissionSource,
  dir: string,
  branch: string,
  force: boolean,
  beforeWrite: () => Promise<void>,
): Promise<{ plan: Plan; branch: BranchCommit & { parent: string } }> {
  const { runId } = source;
  const repository: Repository = await openRepository(dir);
  if (!(await validBranchName(repository, branch)))
    throw new AdmitError({ code: 'admit.bad_branch', runId, headline: `${JSON.stringify(branch)} is not a valid branch name` });
  if (await branchExists(repository, branch))
    throw new AdmitError({
      code: 'admit.branch_exists',
      runId,
      headline: `the branch ${branch} exists already in ${repository.top}; name a new one`,
    });
  const paths = Object.keys(source.files).filter((file) => admitPathProblem(file, source.files) === undefined);
  const found = new Map([...(await lookUpHead(repository, paths))].map(([file, lookup]) => [file, foundInHead(lookup)] as const));
  const plan = uncommittedAtStart(planAdmission({ files: source.files, baseline: source.baseline, found }), dir, source.baseline);
  refuseUnlessClean(source, plan, `HEAD of ${repository.top}`, force);
  const files = Object.fromEntries(plan.changes.map(({ file, after }) => [file, after === null ? null : Buffer.from(after, 'utf8')]));
  const modes = Object.fromEntries(plan.changes.map(({ file, mode }) => [file, mode]));
  const message = `redline: admit run ${runId}\n\nmission: ${source.missionId}\ngoal: ${source.goal}\n`;
  await beforeWrite();
  const made = await commitBranch({ repository, branch, files, modes, message });
  return { plan, branch: { ...made, parent: repository.head } };
}

/**
 * Admission, the explicit step after acceptance. Verifies the run's chain and seal, requires the
 * outcome `complete` and the sealed candidate to be the last recorded one, then applies the candidate
 * to `dir` (by default), or writes it as a patch against `dir`, or commits it to a new branch of
 * `dir`'s repository. Every path is checked before anything is written: a malformed path, or one that
 * is or goes through a symlink, a directory or a submodule, refuses the whole admission; so does a
 * path whose target changed since the run's baseline, unless `force`. Before the paths, the run's review:
 * a failed shadow check, or a `sampled` run no reviewer approved (`reviewItem` looks the verdict up),
 * refuses it unless `force`, and a forced one is recorded (`recordForced`) before anything is written.
 * @throws {AdmitError} naming why nothing was applied, with every path behind it; or, `admit.partial`,
 * that writing files into `dir` stopped at one path, listing what was and was not written.
 * @throws {TypeError} for both `patch` and `gitBranch`, or no `dir` to write files to.
 * @example
 * await admitRun({ ledger, runId, dir: '/src/app' });
 * await admitRun({ ledger, runId, patch: 'change.diff' }); // against the mission's workspace
 */
export async function admitRun(options: AdmitOptions): Promise<Admission> {
  const { ledger, runId, force = false } = options;
  const mode = modeOf(options);
  const source = await admissionSource(ledger, runId);
  const review = await reviewOfRun(source, options.reviewItem);
  if (review.refusals.length > 0 && !force) throw reviewRefused(runId, review.refusals);
  const dir = await directoryOf(source, options.dir);
  let recorded: Admission['recorded'];
  const into = options.patch ?? options.gitBranch ?? dir;
  // The override is on record before the first byte is written: an admission that stops after it is still one that was forced.
  const beforeWrite = async (): Promise<void> => {
    if (review.refusals.length > 0 && options.recordForced !== undefined)
      recorded = await options.recordForced({ runId, overrides: review.refusals, mode, into });
  };
  let plan: Plan;
  let branch: Admission['branch'];
  if (mode === 'git-branch') ({ plan, branch } = await branchInto(source, dir, options.gitBranch as string, force, beforeWrite));
  else {
    const paths = Object.keys(source.files).filter((file) => admitPathProblem(file, source.files) === undefined);
    plan = planAdmission({ files: source.files, baseline: source.baseline, found: lookUpDir(dir, paths) });
    refuseUnlessClean(source, plan, dir, force);
    await beforeWrite();
    if (mode === 'files') applyToDir({ runId, dir, changes: plan.changes });
    else
      await writeFile(
        options.patch as string,
        unifiedDiff(
          plan.changes.map(({ file, before, mode: fileMode, after }) => ({
            file,
            before,
            after: after === null ? null : Buffer.from(after, 'utf8'),
            mode: fileMode,
          })),
        ),
      );
  }
  return {
    runId,
    mode,
    dir,
    written: sortedFiles(plan.changes, false),
    deleted: sortedFiles(plan.changes, true),
    unchanged: plan.unchanged,
    forced: plan.conflicts,
    checked: source.baseline !== undefined,
    ...(options.patch === undefined ? {} : { patch: options.patch }),
    ...(branch === undefined ? {} : { branch }),
    ...(source.changedDuringRun === undefined ? {} : { changedDuringRun: source.changedDuringRun }),
    overridden: review.refusals,
    ...(recorded === undefined ? {} : { recorded }),
    ...(review.approval === undefined ? {} : { approval: review.approval }),
  };
}

/** The refusal of a run its review does not clear: every reason, and how to override. */
function reviewRefused(runId: string, refusals: readonly ReviewRefusal[]): AdmitError {
  return new AdmitError({
    code: (refusals[0] as ReviewRefusal).code,
    runId,
    headline: `run ${runId}: ${refusals.map(({ reason }) => reason).join('; ')}; nothing was written (--force admits it anyway, recorded in the review journal)`,
  });
}
