import os from 'node:os';
import path from 'node:path';
import { RedlineError } from '../errors/redline-error.js';
import { AdmitError, admitRun, conflictReason, type Admission } from '../analysis/admit.js';
import { makeAdmitDir, removeCreatedDirs } from '../analysis/admit-dir.js';
import { ledgerLocation } from '../ledger/open-ledger.js';
import { openReviewQueue, reviewQueueExists } from '../review/open-review-queue.js';
import { journalSigner } from './with-review-queue.js';
import type { ReviewQueue } from '../review/review-queue.js';
import { workingTreeOf } from '../workspace/git-branch.js';
import { withLedger } from './ledger-command.js';
import type { Output } from './run-command.js';
import { clean, jsonLine, shellArg } from './terminal-text.js';

export interface AdmitCommandOptions {
  readonly to?: string;
  readonly patch?: string;
  readonly gitBranch?: string;
  readonly force?: boolean;
  readonly json?: boolean;
  readonly ledger?: string;
}

// File names come from agents: every one is printed through `clean` (text) or `jsonLine` (JSON), so no
// escape sequence, carriage return or bidi override in a name can rewrite the terminal.

function summary(admission: Admission, to: string | undefined, created: boolean): string {
  const counts = `${admission.written.length} written, ${admission.deleted.length} deleted, ${admission.unchanged.length} unchanged`;
  const where = `${clean(to ?? admission.dir)}${created ? ' (created)' : ''}`;
  const run = clean(admission.runId);
  if (admission.branch !== undefined)
    return `created branch ${clean(admission.branch.branch)} at ${admission.branch.commit} (parent ${admission.branch.parent}) for run ${run} in ${where}: ${counts}`;
  if (admission.patch !== undefined) return `wrote the patch of run ${run} against ${where} to ${clean(admission.patch)}: ${counts}`;
  return `admitted run ${run} into ${where}: ${counts}`;
}

/**
 * The command that applies a patch to `dir`. Inside a subdirectory of a git working tree, `git apply`
 * takes paths from the top and skips the others silently, so it runs at the top with `--directory`.
 */
async function applyCommand(dir: string, patch: string): Promise<string> {
  const tree = await workingTreeOf(dir);
  if (tree === undefined || tree.prefix === '') return `git -C ${shellArg(dir)} apply ${shellArg(patch)}`;
  return `git -C ${shellArg(tree.top)} apply --directory=${shellArg(tree.prefix.replace(/\/$/, ''))} ${shellArg(patch)}`;
}

/** The admission for people: a summary, what its review said (an approval, an override), one line per path, and how to go on. */
async function describe(admission: Admission, to: string | undefined, created: boolean, ledgerName: string): Promise<string[]> {
  const files = admission.mode === 'files';
  const forced = new Map(admission.forced.map(({ file, change }) => [file, ` (forced: ${conflictReason(change)})`]));
  const lines = [summary(admission, to, created)];
  const { approval, overridden, recorded } = admission;
  if (approval !== undefined) lines.push(`  approved by reviewer ${clean(approval.reviewer)} (review item ${clean(approval.itemId)})`);
  for (const { reason } of overridden) lines.push(`  forced:   ${clean(reason)}`);
  if (recorded !== undefined)
    lines.push(`  recorded as review journal entry ${recorded.seq} in ${clean(ledgerName)} (redline review journal)`);
  for (const file of admission.written) lines.push(`  ${files ? 'wrote    ' : 'writes   '} ${clean(file)}${forced.get(file) ?? ''}`);
  for (const file of admission.deleted) lines.push(`  ${files ? 'deleted  ' : 'deletes  '} ${clean(file)}${forced.get(file) ?? ''}`);
  for (const file of admission.unchanged) lines.push(`  unchanged ${clean(file)}`);
  const changed = admission.changedDuringRun;
  if (changed !== undefined) {
    lines.push(
      `note: the workspace changed while the run ran (${changed.count} path(s): ${changed.paths.slice(0, 5).map(clean).join(', ')}${changed.count > 5 ? ', …' : ''}); the run was checked on its snapshot, not on those changes`,
    );
  }
  if (admission.patch !== undefined)
    lines.push(
      admission.written.length + admission.deleted.length === 0
        ? 'the patch is empty: nothing to change'
        : `apply it with: ${clean(await applyCommand(admission.dir, admission.patch))}`,
    );
  return lines;
}

/**
 * `redline admit RUN (--to DIR | --patch FILE | --git-branch NAME) [--force] [--json]`: applies a
 * verified, complete run's candidate to DIR (made if missing, and removed again if the admission is
 * refused), writes it as a patch, or commits it to a new branch.
 * A refusal prints the reason and every path behind it (stderr; with `--json` also one JSON line on
 * stdout) and exits 2.
 */
export async function admitCommand(
  runId: string,
  { to, patch, gitBranch, force = false, json = false, ledger }: AdmitCommandOptions,
  { print, progress }: Output,
): Promise<number> {
  if (patch !== undefined && gitBranch !== undefined) throw new TypeError('Expected one of --patch FILE or --git-branch NAME, got both');
  if (to === undefined && patch === undefined && gitBranch === undefined)
    throw new TypeError('Expected --to DIR, --patch FILE or --git-branch NAME, got none');
  // The ledger's review queue: opened when a sampled run's verdict is looked up (if the ledger has one),
  // and created, if need be, to journal an admission forced past the run's review.
  const location = ledgerLocation(ledger, process.cwd());
  let queue: ReviewQueue | undefined;
  const queueAt = async (create: boolean): Promise<ReviewQueue | undefined> =>
    (queue ??= create || (await reviewQueueExists(location)) ? await openReviewQueue(location, await journalSigner(location)) : undefined);
  try {
    return await withLedger(ledger, async (open, ledgerName) => {
      // Files written into --to make it if missing (mkdir -p); a refused admission takes it back.
      const created = to !== undefined && patch === undefined && gitBranch === undefined ? makeAdmitDir({ runId, dir: to }) : [];
      let admission: Admission;
      try {
        admission = await admitRun({
          ledger: open,
          runId,
          force,
          ...(to === undefined ? {} : { dir: path.resolve(to) }),
          ...(patch === undefined ? {} : { patch: path.resolve(patch) }),
          ...(gitBranch === undefined ? {} : { gitBranch }),
          reviewItem: async (itemId) => (await queueAt(false))?.get(itemId),
          recordForced: async (forced) => ((await queueAt(true)) as ReviewQueue).recordAdmission({ ...forced, by: userName() }),
        });
      } catch (error) {
        removeCreatedDirs(created);
        throw error;
      }
      if (json) print(jsonLine(created.length === 0 ? admission : { ...admission, created }));
      else for (const line of await describe(admission, to, created.length > 0, ledgerName)) print(line);
      if (!admission.checked)
        progress(
          `redline: run ${clean(runId)} was recorded without baseline hashes; admitted with --force, without checking for changes made since it started`,
        );
      return 0;
    });
  } catch (error) {
    if (!RedlineError.isInstance(error)) throw error;
    const problems = error instanceof AdmitError ? error.problems : [];
    progress(`redline: ${clean(error instanceof AdmitError ? error.headline : error.message)}`);
    for (const { file, reason } of problems) progress(`  ${clean(file)}: ${clean(reason)}`);
    if (json)
      print(jsonLine({ runId, refused: error.code, message: error instanceof AdmitError ? error.headline : error.message, problems }));
    return 2;
  } finally {
    await queue?.close();
  }
}

/** Who admits: the operating-system user, as the journal records it. */
function userName(): string {
  try {
    return os.userInfo().username;
  } catch {
    return process.env.USER ?? 'unknown';
  }
}
