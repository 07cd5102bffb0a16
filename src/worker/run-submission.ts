import { existsSync, symlinkSync, unlinkSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import type { Outcome } from '../core/outcome.js';
import type { Handoff } from '../handoff/handoff.js';
import type { Ledger } from '../ledger/ledger.js';
import type { RateLimiter } from '../limits/rate-limiter.js';
import type { Signer } from '../ledger/seal-signature.js';
import { recoverRuns } from '../loop/resume.js';
import { runMission } from '../loop/run-mission.js';
import { canonicalJson } from '../core/canonical-json.js';
import { redactCommands } from '../core/redact-command.js';
import { SubmissionRefusedError } from '../errors/submission-refused-error.js';
import { loadMission } from '../mission/load.js';
import type { Mission } from '../mission/mission.js';
import { commandProposer } from '../proposers/command-proposer.js';
import { writeInside } from '../workspace/safe-fs.js';
import { lstatOrNothing } from '../workspace/stamp.js';
import { materialize, type BlobSource } from './materialize.js';
import { stableHomeOf, takeStableTree, type HeldTree, type TreeReport } from './stable-tree.js';
import { missionToRun, verifySubmission, type SubmissionTrust } from './submission-signature.js';
import { DEFAULT_BOUNDS, type WorkspaceBounds } from './workspace-bounds.js';
import type { Submission } from './submission.js';
import type { WorkerStore } from './worker-store.js';

/** What became of a submission a worker took. */
export type SubmissionResult =
  /**
   * Sealed now by this worker: a new run, or one resumed (or sealed crashed) after its worker died. `workspace`
   * says how its workspace's stable directory came to hold it; absent when it was written fresh for it.
   */
  | { readonly kind: 'sealed'; readonly outcome: Outcome; readonly resumed: boolean; readonly workspace?: TreeReport }
  /** Sealed before this worker got to it (another worker finished it). */
  | { readonly kind: 'already_sealed'; readonly outcome: Outcome }
  /** Another process on this host runs it now: the job goes back to the queue. */
  | { readonly kind: 'busy' };

export interface RunSubmissionOptions {
  readonly submissionId: string;
  readonly store: WorkerStore;
  readonly ledger: Ledger;
  /**
   * Where submissions are materialized: `<workdir>/<submission>/` (mission.json and workspace, a symlink to
   * the workspace's stable directory `<workdir>/.workspaces/<key>/tree`, or a directory of its own).
   */
  readonly workdir: string;
  /** The runs' cache folder (see `runMission`), used for workspaces in a stable directory. */
  readonly cacheDir?: string;
  readonly cacheMaxBytes?: number;
  readonly scratchDir?: string;
  readonly signer?: Signer;
  readonly handoff?: Handoff;
  /** The fleet's rate limits, which the run's model calls wait for. */
  readonly rateLimiter?: RateLimiter;
  /** Whose submissions run: those signed by one of these keys, or (`'database'`) every row as it is. */
  readonly trust: SubmissionTrust;
  /** How large a workspace this worker writes. @default DEFAULT_BOUNDS */
  readonly bounds?: WorkspaceBounds;
}

/** A mission's fields without where it sits on a machine, as canonical JSON (secrets of commands redacted, as recorded). */
function placeless(mission: Readonly<Record<string, unknown>>): string {
  const { baseDir: _baseDir, workspaceDir: _workspaceDir, ...spec } = mission;
  return canonicalJson(spec);
}

/**
 * Refuses to resume a run whose recorded mission is not the signed submission's: whoever can write the
 * database could otherwise start the run in the ledger with a mission of their own for a worker to resume.
 */
async function assertRecordedMission(ledger: Ledger, runId: string, mission: Mission): Promise<void> {
  const started = (await ledger.records(runId)).find((record) => record.type === 'run.started');
  const recorded = started?.data.mission;
  if (
    typeof recorded !== 'object' ||
    recorded === null ||
    placeless(recorded as Record<string, unknown>) !== placeless(redactCommands(mission) as unknown as Record<string, unknown>)
  )
    throw new SubmissionRefusedError(
      runId,
      `run ${runId} in the ledger records a mission other than its signed submission's; it is not resumed`,
    );
}

/**
 * Runs one submission as the run of the same id. First its signature is checked against `trust`, over
 * what this worker loaded (see `submissionDigest`): a submission unsigned, signed by a key not trusted,
 * or changed since it was signed is refused before anything is written or run. Its workspace is
 * materialized from the stored blobs into the workspace's stable directory, which keeps what the previous
 * submission of the same workspace left there and rewrites only what differs (a fresh directory when
 * another submission holds it); a run the ledger has already is resumed from its records, or sealed
 * crashed when it cannot be (docs/workers.md); a sealed one is left as it is. Exactly one seal per run is the ledger's to
 * guarantee: a run that another worker seals first makes this one's next append fail.
 * @throws {TypeError} for a submission that is missing, malformed or too large; {@link EscapeError} for a hostile
 * manifest; {@link SubmissionRefusedError} for one whose signature does not hold.
 */
export async function runSubmission({
  submissionId,
  store,
  ledger,
  workdir,
  scratchDir,
  signer,
  handoff,
  rateLimiter,
  trust,
  bounds = DEFAULT_BOUNDS,
  cacheDir,
  cacheMaxBytes,
}: RunSubmissionOptions): Promise<SubmissionResult> {
  const submission = await store.submission(submissionId);
  if (submission === undefined) throw new TypeError(`Expected submission ${JSON.stringify(submissionId)} in the store, got none`);
  verifySubmission(submission, trust);
  const [row] = await ledger.runs({ runId: submission.id });
  if (row?.sealed === true) return { kind: 'already_sealed', outcome: row.outcome as Outcome };
  const dir = path.join(workdir, submission.id);
  const missionFile = path.join(dir, 'mission.json');
  await mkdir(dir, { recursive: true, mode: 0o700 });
  let held: HeldTree | undefined;
  if ('workspace' in submission.mission) {
    const place = await placeWorkspace({
      submission,
      dir,
      workdir,
      bounds,
      blobs: { many: (hashes) => store.blobs(hashes), parts: (hash) => store.blobParts(hash) },
    });
    if (place === 'busy') return { kind: 'busy' };
    held = place;
  }
  try {
    if (!existsSync(missionFile)) writeInside(dir, 'mission.json', JSON.stringify(missionToRun(submission)));
    const result = await runPlaced({
      submission,
      dir,
      missionFile,
      ledger,
      trust,
      cache: held === undefined ? undefined : cacheDir,
      cacheMaxBytes,
      scratchDir,
      signer,
      handoff,
      rateLimiter,
    });
    return result.kind === 'sealed' && held !== undefined ? { ...result, workspace: held.report } : result;
  } finally {
    held?.release();
  }
}

/**
 * Puts the submission's workspace at `<dir>/workspace`: a directory written for it before on this machine
 * is used as it is; otherwise the workspace's stable directory, brought to its manifest and linked there,
 * or — when another submission holds that — a fresh directory. `'busy'` when this very submission holds
 * the stable directory in a live process: the job goes back.
 */
async function placeWorkspace({
  submission,
  dir,
  workdir,
  bounds,
  blobs,
}: {
  submission: Submission;
  dir: string;
  workdir: string;
  bounds: WorkspaceBounds;
  blobs: BlobSource;
}): Promise<HeldTree | undefined | 'busy'> {
  const link = path.join(dir, 'workspace');
  const there = lstatOrNothing(link);
  const fresh = {
    target: link,
    manifest: submission.manifest,
    expectedHash: submission.manifestHash,
    rootMode: submission.rootMode,
    blobs,
    bounds,
  };
  if (there?.isDirectory() === true) return undefined;
  const taken = await takeStableTree({ ...fresh, home: stableHomeOf(workdir, submission), submission: submission.id });
  if ('busy' in taken) {
    if (taken.busy === submission.id) return 'busy';
    if (there !== undefined) unlinkSync(link);
    await materialize(fresh);
    return undefined;
  }
  try {
    if (there !== undefined) unlinkSync(link);
    symlinkSync(path.relative(dir, taken.tree), link);
  } catch (error) {
    taken.release();
    throw error;
  }
  return taken;
}

/** Runs (or resumes) the submission whose mission file and workspace are in place. */
async function runPlaced({
  submission,
  dir,
  missionFile,
  ledger,
  trust,
  cache,
  cacheMaxBytes,
  scratchDir,
  signer,
  handoff,
  rateLimiter,
}: {
  submission: Submission;
  dir: string;
  missionFile: string;
  ledger: Ledger;
  trust: SubmissionTrust;
  cache: string | undefined;
  cacheMaxBytes: number | undefined;
  scratchDir: string | undefined;
  signer: Signer | undefined;
  handoff: Handoff | undefined;
  rateLimiter: RateLimiter | undefined;
}): Promise<SubmissionResult> {
  const [row] = await ledger.runs({ runId: submission.id });
  const mission = await loadMission(missionFile);
  const proposer =
    submission.proposer === undefined
      ? undefined
      : commandProposer({ command: submission.proposer, cwd: mission.workspaceDir ?? mission.baseDir });
  const shared = {
    ledger,
    ...(proposer === undefined ? {} : { proposer }),
    ...(scratchDir === undefined ? {} : { scratchDir }),
    ...(signer === undefined ? {} : { signer }),
    ...(handoff === undefined ? {} : { handoff }),
    ...(rateLimiter === undefined ? {} : { rateLimiter }),
    ...(cache === undefined ? {} : { cacheDir: cache }),
    ...(cacheMaxBytes === undefined ? {} : { cacheMaxBytes }),
  };
  if (row === undefined) {
    const result = await runMission({ ...shared, mission, runId: submission.id });
    return { kind: 'sealed', outcome: result.outcome, resumed: false };
  }
  // Resumed from this machine's copy of the submission: the run may have started on another machine.
  // Resuming runs the mission its run.started recorded: it must be the one the submitter signed.
  if (trust !== 'database') await assertRecordedMission(ledger, submission.id, mission);
  const [recovery] = await recoverRuns({ ...shared, runId: submission.id, baseDir: dir });
  if (recovery?.action === 'skipped_live') return { kind: 'busy' };
  const [sealed] = await ledger.runs({ runId: submission.id });
  if (sealed?.sealed !== true) return { kind: 'busy' };
  return recovery?.action === 'already_sealed'
    ? { kind: 'already_sealed', outcome: sealed.outcome as Outcome }
    : { kind: 'sealed', outcome: sealed.outcome as Outcome, resumed: true };
}
