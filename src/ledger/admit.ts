import { mkdir, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { RedlineError } from '../errors/redline-error.js';
import { badPath, type Candidate } from '../loop/candidate.js';
import type { Ledger } from './ledger.js';
import { verifyRun } from './verify.js';

/** What admission wrote. */
export interface Admission {
  readonly runId: string;
  readonly written: readonly string[];
  readonly deleted: readonly string[];
}

const refusal = (code: string, message: string): RedlineError => new RedlineError({ code, message });

/**
 * Admission, the explicit step after acceptance: verifies the run's chain and seal, requires the outcome
 * `complete`, and applies the sealed candidate's files to `dir`.
 * @throws {RedlineError} `admit.*` naming why nothing was applied.
 */
export async function admitRun(ledger: Ledger, runId: string, dir: string): Promise<Admission> {
  const [run] = await ledger.runs({ runId });
  if (run === undefined) throw refusal('admit.unknown_run', `no run ${runId} in this ledger`);
  const check = verifyRun(run, await ledger.stored(runId));
  if (!check.ok) throw refusal('admit.chain_broken', `run ${runId} does not verify: record ${check.firstBad?.seq} ${check.firstBad?.problem} (${check.firstBad?.detail})`);
  if (!run.sealed) throw refusal('admit.not_sealed', `run ${runId} is not sealed`);
  if (run.outcome !== 'complete') throw refusal('admit.not_complete', `run ${runId} ended ${run.outcome} (${run.stopReason}); only a complete run can be admitted`);
  const records = await ledger.records(runId);
  const seal = records.at(-1)?.data as { candidateHash?: string };
  const candidate = records.filter((record) => record.type === 'attempt').at(-1)?.data.candidate as Candidate | undefined;
  if (candidate === undefined || candidate.hash !== seal.candidateHash) throw refusal('admit.candidate_mismatch', `run ${runId}: the sealed candidate is not the last recorded one`);
  if (!(await stat(dir).then((info) => info.isDirectory(), () => false))) throw refusal('admit.no_directory', `${dir} is not a directory`);
  const written: string[] = [];
  const deleted: string[] = [];
  for (const file of Object.keys(candidate.files)) {
    const problem = badPath(file);
    if (problem !== undefined) throw refusal('admit.bad_path', `run ${runId} names ${problem}`);
  }
  for (const [file, content] of Object.entries(candidate.files)) {
    const target = path.join(dir, file);
    if (content === null) {
      await rm(target, { force: true });
      deleted.push(file);
    } else {
      await mkdir(path.dirname(target), { recursive: true });
      await writeFile(target, content);
      written.push(file);
    }
  }
  return { runId, written, deleted };
}
