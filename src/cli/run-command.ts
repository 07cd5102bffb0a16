import type { Finding } from '../checks/finding.js';
import type { Ledger, LedgerRecord } from '../ledger/ledger.js';
import { displayLocation, ledgerLocation, openLedger } from '../ledger/open-ledger.js';
import { recoverRuns, type Recovery } from '../loop/resume.js';
import type { Signer } from '../ledger/seal-signature.js';
import { openSigner } from '../ledger/signing-key.js';
import { loadMission } from '../mission/load.js';
import type { Mission } from '../mission/mission.js';
import { agentProposer } from '../proposers/agent-proposer.js';
import { commandProposer } from '../proposers/command-proposer.js';
import type { Proposer } from '../proposers/proposer.js';
import { runMission, type RunResult } from '../loop/run-mission.js';
import type { Handoff } from '../handoff/handoff.js';
import { buildJudge } from '../judge/from-spec.js';
import type { Judge } from '../judge/judge.js';
import { budgetAlerts } from '../review/alerts.js';
import { openReviewQueue } from '../review/open-review-queue.js';
import type { ReviewQueue } from '../review/review-queue.js';
import { describeRun, runSummary } from './format.js';
import { clean, jsonLine, shellArg } from './terminal-text.js';

export interface RunCommandOptions {
  readonly json?: boolean;
  readonly proposer?: string;
  /** An agent that edits files in place, run in a private copy each attempt. */
  readonly agent?: string;
  readonly model?: string;
  readonly baseUrl?: string;
  readonly apiKeyEnv?: string;
  readonly approve?: readonly string[];
  /** Ledger location: a SQLite file or a postgres:// URL. */
  readonly ledger?: string;
  /** Hand the run to the review queue in the ledger's storage (SPEC §5). */
  readonly review?: boolean;
  /** With `review`: the share of `sampled` runs enqueued. @default 0.1 */
  readonly sampleRate?: number;
  /** With `review`: where budget-cap alerts are POSTed. */
  readonly alertWebhook?: string;
  /** The Ed25519 private key seals are signed with (else `$REDLINE_SIGNING_KEY`, else the local key). */
  readonly signingKey?: string;
}

export interface Output {
  /** Results (stdout). */
  readonly print: (line: string) => void;
  /** Progress and notes (stderr). */
  readonly progress: (line: string) => void;
}

/** Exit code of a finished run: 0 complete/complete_noop, 1 blocked/failed. */
export function exitCodeOf(result: RunResult): number {
  return result.outcome === 'complete' || result.outcome === 'complete_noop' ? 0 : 1;
}

async function proposerFromFlags(mission: Mission, options: RunCommandOptions): Promise<Proposer | undefined> {
  if (options.proposer !== undefined && options.agent !== undefined) throw new TypeError('Expected one of --proposer or --agent, got both');
  if (options.proposer !== undefined) return commandProposer({ command: options.proposer, cwd: mission.workspaceDir ?? mission.baseDir });
  if (options.agent !== undefined) {
    if (mission.workspaceDir === undefined)
      throw new TypeError(`Expected a mission with a workspace for --agent, got mission ${mission.id} without one`);
    return agentProposer({ command: options.agent });
  }
  if (options.model === undefined) return undefined;
  if (options.baseUrl === undefined) throw new TypeError('Expected --base-url with --model, got none');
  const { modelProposer } = await import('../ai-sdk/model-proposer.js');
  const apiKeyEnv = options.apiKeyEnv ?? 'OPENAI_API_KEY';
  return modelProposer({ baseURL: options.baseUrl, model: options.model, apiKey: process.env[apiKeyEnv] });
}

/** A note on the run's start: symlinks of the workspace that lead outside it, which programs can write through. */
function startLine(record: LedgerRecord): string | undefined {
  const workspace = record.data.workspace as { linksOutside?: { count: number; paths: string[] } } | undefined;
  const links = workspace?.linksOutside;
  if (links === undefined || record.data.sandbox !== undefined) return undefined;
  const shown = links.paths.slice(0, 3).map(clean).join(', ');
  return `  note: ${links.count} symlink(s) of the workspace lead outside it (${shown}${links.count > 3 ? ', …' : ''}); the copies keep them, so checks and agents can write through them unless the mission sets sandbox: bwrap`;
}

function attemptLine(record: LedgerRecord): string | undefined {
  if (record.type === 'run.started') return startLine(record);
  if (record.type !== 'attempt') return undefined;
  const findings = record.data.findings as readonly Finding[];
  const bad = findings.filter((item) => item.status === 'fail' || item.status === 'error');
  const score = findings.find((item) => item.score !== undefined)?.score;
  const what =
    bad.length === 0
      ? 'all checks passed'
      : `${bad.length} failing: ${bad
          .slice(0, 2)
          .map((item) => clean(item.reasonCodes[0] ?? item.check))
          .join(', ')}${bad.length > 2 ? ', …' : ''}`;
  return `  attempt ${record.data.attempt}: ${what}${score === undefined ? '' : ` (score ${score.toFixed(2)})`}`;
}

/** Whether an unsealed run of the ledger (of `missionId`, when given) started under a review queue's plan. */
async function anyStartedUnderQueue(ledger: Ledger, missionId: string | undefined): Promise<boolean> {
  for (const run of await ledger.runs({ unsealed: true })) {
    if (missionId !== undefined && run.missionId !== missionId) continue;
    if ((await ledger.records(run.runId))[0]?.data.handoff !== undefined) return true;
  }
  return false;
}

export interface RecoverWithQueueOptions {
  readonly ledger: Ledger;
  /** Where the ledger is: its review queue is opened there when a run to recover started under one. */
  readonly location: string;
  readonly output: Output;
  /** The review queue, when the caller has it open. */
  readonly handoff?: Handoff;
  /** @default true */
  readonly resume?: boolean;
  /** Only runs of this mission (see `recoverRuns`). */
  readonly missionId?: string;
  /** Only runs whose process is known to be gone (see `recoverRuns`). @default false */
  readonly knownDeadOnly?: boolean;
  /** Signs the seals recovery writes. */
  readonly signer?: Signer;
}

/**
 * Recovers the ledger's crashed runs. Those that started under the review queue go back to it when they
 * are sealed: through `handoff` when the caller has the queue open, else through the queue in the ledger
 * at `location`, opened for the purpose — so no command recovers such a run past the queue.
 */
export async function recoverWithQueue({
  ledger,
  location,
  output,
  handoff,
  resume = true,
  missionId,
  knownDeadOnly = false,
  signer,
}: RecoverWithQueueOptions): Promise<Recovery[]> {
  const scope = { resume, knownDeadOnly, ...(missionId === undefined ? {} : { missionId }), ...(signer === undefined ? {} : { signer }) };
  if (handoff !== undefined || !(await anyStartedUnderQueue(ledger, missionId)))
    return recoverRuns({ ledger, ...scope, ...(handoff === undefined ? {} : { handoff }) });
  const queue = await openReviewQueue(location);
  try {
    return await recoverRuns({ ledger, ...scope, handoff: reviewHandoff(queue, {}, output) });
  } finally {
    await queue.close();
  }
}

/** One line for what recovery did with a run before new work; undefined for a live run (it is being run). */
function recoveryLine({ runId, action, detail }: Recovery): string | undefined {
  switch (action) {
    case 'resumed':
      return `recovered run ${clean(runId)}: resumed, sealed ${clean(detail)}`;
    case 'sealed_crashed':
      return `recovered run ${clean(runId)}: sealed failed_with_evidence / crashed (${clean(detail)})`;
    case 'already_sealed':
      return `run ${clean(runId)} was not recovered: already sealed ${clean(detail)}`;
    default:
      return undefined;
  }
}

/**
 * Recovers, before new work, what is safe and relevant: the unsealed runs (of `missionId`, when given)
 * whose process is known to be gone. It says what it did, as read back from the ledger, and counts the
 * unsealed runs it left (other missions', or a process on another host that may be alive) in one line.
 */
export async function recoverBeforeRun({
  ledger,
  location,
  output,
  handoff,
  missionId,
  signer,
}: Omit<RecoverWithQueueOptions, 'resume' | 'knownDeadOnly'>): Promise<void> {
  const recoveries = await recoverWithQueue({
    ledger,
    location,
    output,
    knownDeadOnly: true,
    ...(handoff === undefined ? {} : { handoff }),
    ...(missionId === undefined ? {} : { missionId }),
    ...(signer === undefined ? {} : { signer }),
  });
  for (const recovery of recoveries) {
    const line = recoveryLine(recovery);
    if (line !== undefined) output.progress(line);
  }
  const left = recoveries.filter((recovery) => recovery.action === 'left').length;
  if (left > 0)
    output.progress(
      `${left} other unsealed run${left === 1 ? '' : 's'}: run \`redline ledger recover --ledger ${clean(shellArg(displayLocation(location)))}\``,
    );
}

/** The handoff `--review` asks for, on the queue in the ledger's storage; alerts go to stderr (and the webhook). */
export function reviewHandoff(queue: ReviewQueue, options: RunCommandOptions, { progress }: Output): Handoff {
  const alerts = budgetAlerts({
    queue,
    logger: { warn: progress },
    ...(options.alertWebhook === undefined ? {} : { webhook: { url: options.alertWebhook } }),
  });
  return { queue, alerts, ...(options.sampleRate === undefined ? {} : { sampleRate: options.sampleRate }) };
}

/** What the queue did with a run, from its seal record, as one line. */
function reviewLine(handoff: Record<string, unknown>): string {
  const tags = (handoff.tags as string[] | undefined) ?? [];
  const what =
    handoff.enqueued === true
      ? `enqueued as item ${clean(String(handoff.itemId))}${tags.length === 0 ? '' : ` (${clean(tags.join(', '))})`}`
      : `not enqueued (${clean(String(handoff.reason ?? 'dropped at capacity'))})`;
  const dropped = handoff.dropped as { itemId: string; runId: string } | undefined;
  const mode = handoff.modeChanged as { from: string; to: string; depth: number } | undefined;
  return [
    `review        ${what} · queue ${String(handoff.mode)}`,
    ...(dropped === undefined
      ? []
      : [`              dropped item ${clean(dropped.itemId)} (run ${clean(dropped.runId)}) at capacity: see redline review stats`]),
    ...(mode === undefined ? [] : [`              queue mode ${mode.from} → ${mode.to} at depth ${mode.depth}`]),
  ].join('\n');
}

/** Runs one mission file against an open ledger and prints its summary. */
export async function runMissionFile(
  file: string,
  ledger: Ledger,
  ledgerName: string,
  options: RunCommandOptions,
  { print, progress }: Output,
  handoff?: Handoff,
  signer?: Signer,
  judge?: Judge,
): Promise<RunResult> {
  const mission = await loadMission(file);
  const proposer = await proposerFromFlags(mission, options);
  if (options.json !== true) progress(`mission ${clean(mission.id)}: ${clean(mission.goal.split('\n')[0] ?? '')}`);
  const result = await runMission({
    mission,
    ledger,
    ...(proposer === undefined ? {} : { proposer }),
    ...(options.approve === undefined ? {} : { approvals: options.approve }),
    ...(handoff === undefined ? {} : { handoff }),
    ...(signer === undefined ? {} : { signer }),
    ...(judge === undefined ? {} : { judge }),
    onRecord: (record) => {
      const line = options.json === true ? undefined : attemptLine(record);
      if (line !== undefined) progress(line);
    },
  });
  const review =
    handoff === undefined ? undefined : ((await ledger.records(result.runId)).at(-1)?.data.handoff as Record<string, unknown> | undefined);
  if (options.json === true) print(jsonLine({ ...runSummary(result), ...(review === undefined ? {} : { review }) }));
  else
    print(
      [
        describeRun(result, `redline ledger show ${result.runId} --ledger ${shellArg(ledgerName)}`),
        ...(review === undefined ? [] : [reviewLine(review)]),
      ].join('\n'),
    );
  return result;
}

/** Whether the mission's judge is a person, who answers through the review queue. */
function judgedByHuman(mission: Mission): boolean {
  return mission.judge === 'human' || (typeof mission.judge === 'object' && mission.judge.kind === 'human');
}

/** `redline run`: opens the ledger (default `.redline/redline.db` next to the mission), recovers, runs. */
export async function runCommand(file: string, options: RunCommandOptions, output: Output): Promise<number> {
  const mission = await loadMission(file);
  const location = ledgerLocation(options.ledger, mission.baseDir);
  if (options.review !== true && (options.sampleRate !== undefined || options.alertWebhook !== undefined))
    throw new TypeError('Expected --review with --sample-rate or --alert-webhook, got neither');
  const ledger = await openLedger(location);
  let queue: ReviewQueue | undefined;
  try {
    // Opened before anything runs, so a bad key refuses the run instead of leaving it unsealed.
    const { signer } = await openSigner({ explicit: options.signingKey, location, baseDir: mission.baseDir });
    // A human judge asks the queue in the ledger's storage, with or without --review.
    const human = judgedByHuman(mission);
    queue = options.review === true || human ? await openReviewQueue(location) : undefined;
    const handoff = queue === undefined || options.review !== true ? undefined : reviewHandoff(queue, options, output);
    const judge = human
      ? await buildJudge(mission, {
          queue: queue as ReviewQueue,
          onRequest: ({ itemId, attempt, deadline }) =>
            output.progress(
              `  attempt ${attempt}: waiting for a verdict on review item ${clean(itemId)} until ${new Date(deadline).toISOString()} (redline review verdict ${clean(itemId)} --approve|--reject)`,
            ),
        })
      : undefined;
    await recoverBeforeRun({ ledger, location, output, missionId: mission.id, signer, ...(handoff === undefined ? {} : { handoff }) });
    return exitCodeOf(await runMissionFile(file, ledger, displayLocation(location), options, output, handoff, signer, judge));
  } finally {
    await queue?.close();
    await ledger.close();
  }
}
