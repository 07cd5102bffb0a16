import { z } from 'zod';
import { AdmitError } from '../errors/admit-error.js';
import { parseRecord } from '../ledger/chain.js';
import type { Ledger, RunRecord, StoredRecord } from '../ledger/ledger.js';
import { RecordParseError } from '../errors/record-parse-error.js';
import { readRun } from '../ledger/history.js';
import { verifyRun } from '../ledger/verify.js';

/** What admission needs of a run, read from its verified records. */
export interface AdmissionSource {
  readonly runId: string;
  readonly missionId: string;
  readonly goal: string;
  /** The mission's workspace (absolute), when it has one. */
  readonly workspaceDir?: string;
  /** The sealed candidate's files: content per changed path, `null` = delete. */
  readonly files: Readonly<Record<string, string | null>>;
  /**
   * sha256 (hex) per candidate path of the file in the run's baseline snapshot, `null` where it had none;
   * undefined for runs sealed before redline recorded it.
   */
  readonly baseline?: Readonly<Record<string, string | null>>;
  /** Paths of the live workspace that changed while the run ran (its seal's `workspace.changed_during_run`). */
  readonly changedDuringRun?: { readonly count: number; readonly paths: readonly string[] };
  /** How far the checks could vouch for the run: `verified`, or `sampled` (accepted on incomplete signals). */
  readonly verification: string;
  /** The shadow checks' verdict on the sealed candidate, with the checks that failed; none without shadow checks. */
  readonly shadow?: { readonly verdict: string; readonly failed: readonly string[] };
  /** The review item the seal's handoff enqueued the run as, if it did. */
  readonly reviewItemId?: string;
}

const sha256 = z.string().regex(/^[0-9a-f]{64}$/);
const startedSchema = z.object({ mission: z.object({ id: z.string(), goal: z.string(), workspaceDir: z.string().optional() }) });
const sealedSchema = z.object({
  candidateHash: z.string(),
  verification: z.string(),
  shadow: z.object({ verdict: z.string(), findings: z.array(z.object({ check: z.string(), status: z.string() })) }).optional(),
  handoff: z.object({ itemId: z.string().optional() }).optional(),
  baseline: z.object({ manifest: z.string(), files: z.record(z.string(), sha256.nullable()) }).optional(),
  evidence: z.array(z.object({ code: z.string(), count: z.number().optional(), paths: z.array(z.string()).optional() })).optional(),
});
const attemptSchema = z.object({ candidate: z.object({ files: z.record(z.string(), z.string().nullable()), hash: z.string() }) });

function changedDuringRun(evidence: z.infer<typeof sealedSchema>['evidence']): Pick<AdmissionSource, 'changedDuringRun'> {
  const changed = evidence?.find((item) => item.code === 'workspace.changed_during_run');
  return changed === undefined
    ? {}
    : { changedDuringRun: { count: changed.count ?? changed.paths?.length ?? 0, paths: changed.paths ?? [] } };
}

function parsed<T>(schema: z.ZodType<T>, record: RunRecord | undefined, runId: string): T {
  const result = schema.safeParse(record?.data);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  throw new AdmitError({
    code: 'admit.malformed_record',
    runId,
    headline: `run ${runId}: its ${record?.type ?? 'missing'} record is not what redline writes (${issue?.path.join('.') ?? ''}: ${issue?.message ?? 'absent'})`,
  });
}

/** The run's records parsed; one that does not parse makes the run malformed for admission. */
function readRecords(stored: readonly StoredRecord[], runId: string): RunRecord[] {
  try {
    return stored.map(parseRecord);
  } catch (error) {
    if (!(error instanceof RecordParseError)) throw error;
    throw new AdmitError({
      code: 'admit.malformed_record',
      runId,
      headline: `run ${runId}: its ${error.type} record is not what redline writes (${error.path.replace(/^data\.?/, '')}: ${error.problem})`,
    });
  }
}

/**
 * Reads a run for admission from one snapshot of the ledger and checks it may be admitted: its chain
 * verifies, it is sealed `complete`, and the sealed candidate is the last one recorded.
 * @throws {AdmitError} naming why the run cannot be admitted.
 */
export async function admissionSource(ledger: Ledger, runId: string): Promise<AdmissionSource> {
  const refuse = (
    code: 'admit.unknown_run' | 'admit.chain_broken' | 'admit.not_sealed' | 'admit.not_complete' | 'admit.candidate_mismatch',
    headline: string,
  ): AdmitError => new AdmitError({ code, runId, headline });
  const [listed] = await ledger.runs({ runId });
  const snapshot = listed === undefined ? undefined : await readRun(ledger, listed);
  if (snapshot === undefined) throw refuse('admit.unknown_run', `no run ${runId} in this ledger`);
  const { run, records: stored } = snapshot;
  const check = verifyRun(run, stored);
  if (!check.ok)
    throw refuse(
      'admit.chain_broken',
      `run ${runId} does not verify: record ${check.firstBad?.seq} ${check.firstBad?.problem} (${check.firstBad?.detail})`,
    );
  if (!run.sealed) throw refuse('admit.not_sealed', `run ${runId} is not sealed`);
  if (run.outcome !== 'complete')
    throw refuse('admit.not_complete', `run ${runId} ended ${run.outcome} (${run.stopReason}); only a complete run can be admitted`);
  const records = readRecords(stored, runId);
  const { mission } = parsed(startedSchema, records[0], runId);
  const seal = parsed(sealedSchema, records.at(-1), runId);
  const last = records.filter((record) => record.type === 'attempt').at(-1);
  const candidate = last === undefined ? undefined : parsed(attemptSchema, last, runId).candidate;
  if (candidate === undefined || candidate.hash !== seal.candidateHash)
    throw refuse('admit.candidate_mismatch', `run ${runId}: the sealed candidate is not the last recorded one`);
  const unrecorded = Object.keys(candidate.files).filter(
    (file) => seal.baseline !== undefined && !Object.hasOwn(seal.baseline.files, file),
  );
  if (unrecorded.length > 0) {
    throw new AdmitError({
      code: 'admit.malformed_record',
      runId,
      headline: `run ${runId}: its seal records no baseline hash for ${unrecorded.length} candidate path(s)`,
      problems: unrecorded.map((file) => ({ file, reason: 'no baseline hash recorded' })),
    });
  }
  return {
    runId,
    missionId: mission.id,
    goal: mission.goal,
    ...(mission.workspaceDir === undefined ? {} : { workspaceDir: mission.workspaceDir }),
    files: candidate.files,
    ...(seal.baseline === undefined ? {} : { baseline: seal.baseline.files }),
    ...changedDuringRun(seal.evidence),
    verification: seal.verification,
    ...(seal.shadow === undefined
      ? {}
      : {
          shadow: {
            verdict: seal.shadow.verdict,
            failed: [...new Set(seal.shadow.findings.filter((item) => item.status === 'fail').map((item) => item.check))],
          },
        }),
    ...(seal.handoff?.itemId === undefined ? {} : { reviewItemId: seal.handoff.itemId }),
  };
}
