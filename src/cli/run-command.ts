import path from 'node:path';
import type { Finding } from '../core/finding.js';
import type { Ledger, RunRecord } from '../ledger/ledger.js';
import type { TypedRecord } from '../ledger/run-records.js';
import { displayLocation, ledgerLocation } from '../ledger/open-ledger.js';
import { recoverRuns, type Recovery } from '../loop/resume.js';
import type { Signer } from '../ledger/seal-signature.js';
import { openSigner } from '../ledger/signing-key.js';
import { loadMission } from '../mission/load.js';
import type { Mission } from '../mission/mission.js';
import { readPrices } from '../metering/prices.js';
import { agentProposer } from '../proposers/agent-proposer.js';
import { presetNamed } from '../proposers/agent-presets/presets.js';
import { presetProposer } from '../proposers/preset-proposer.js';
import { commandProposer } from '../proposers/command-proposer.js';
import type { Proposer } from '../proposers/proposer.js';
import { runMission, type RunResult } from '../loop/run-mission.js';
import { startedUnderReview, type RunHandoff } from '../handoff/handoff.js';
import type { HandoffResult } from '../handoff/handoff-result.js';
import { buildJudge } from '../roles/build-judge.js';
import type { Judge } from '../judge/judge.js';
import { openReviewQueue, reviewQueueExists } from '../review/open-review-queue.js';
import { routeReview, type ReviewChoice } from '../handoff/review-route.js';
import type { ReviewQueue } from '../review/review-queue.js';
import { queueOnFirstNeed, reviewHandoff, type QueueOnFirstNeed } from './review-handoff.js';
import { describeRun, inventoryLine, runSummary, snapshotHow } from './format.js';
import { SharedLedgers } from './shared-ledgers.js';
import { defaultCacheDir } from '../workspace/workspace-cache.js';
import { clean, jsonLine, shellArg } from './terminal-text.js';

export interface RunCommandOptions {
  readonly json?: boolean;
  readonly proposer?: string;
  /** An agent that edits files in place, run in a private copy each attempt: a preset's name (`codex`, `claude`, `qwen`, `gemini`) or a command line. */
  readonly agent?: string;
  /** With a preset `agent`: more arguments for its CLI (repeatable). */
  readonly agentArg?: readonly string[];
  /** With `agent`: the endpoint its model calls go to through a metering endpoint (docs/metering.md). */
  readonly meterUpstream?: string;
  /** With `meterUpstream`: a prices file (JSON or YAML) over the default prices. */
  readonly meterPrices?: string;
  readonly model?: string;
  readonly baseUrl?: string;
  readonly apiKeyEnv?: string;
  readonly approve?: readonly string[];
  /** Ledger location: a SQLite file or a postgres:// URL. */
  readonly ledger?: string;
  /** `false` (`--no-cache`): every run writes a fresh check copy instead of keeping one in the cache folder. */
  readonly cache?: boolean;
  /** The cache folder (else `$REDLINE_CACHE`, else `<scratch>/redline-cache`; docs/workspaces.md). */
  readonly cacheDir?: string;
  /** The cache folder's cap in bytes. */
  readonly cacheMaxSize?: number;
  /**
   * Hand the run to the review queue in the ledger's storage (docs/review.md): `true` (`--review`) opens it
   * (creating it) before the run, so its mode and tuner set the budget; `false` (`--no-review`) opts out,
   * recorded in `run.started`; absent, the default: the queue the ledger has takes the run's unverified
   * outcome and a sample of its `sampled` one, and a ledger without one gets one from the first run that needs it.
   */
  readonly review?: boolean;
  /** Unless `review` is false: the share of `sampled` runs enqueued. @default 0.1 */
  readonly sampleRate?: number;
  /** Unless `review` is false: where budget-cap alerts are POSTed. */
  readonly alertWebhook?: string;
  /** The Ed25519 private key seals are signed with (else `$REDLINE_SIGNING_KEY`, else the local key). */
  readonly signingKey?: string;
  /** A sealed blocked or failed_with_evidence run of this mission that the new run resolves (a linked run). */
  readonly resolves?: string;
  /** With `resolves`: the resolution note recorded with the link. */
  readonly note?: string;
  /** Rerun a plan that thrashed on this mission (recorded). */
  readonly forceSamePlan?: boolean;
  /** Names the run's plan in place of the proposer's command (recorded). */
  readonly planLabel?: string;
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
  if (options.agent === undefined && (options.meterUpstream !== undefined || options.meterPrices !== undefined))
    throw new TypeError(
      "Expected --agent with --meter-upstream or --meter-prices, got no --agent (a mission's agent is metered by its proposer.meter)",
    );
  if (options.meterPrices !== undefined && options.meterUpstream === undefined)
    throw new TypeError('Expected --meter-upstream with --meter-prices, got none');
  if (options.agent !== undefined) {
    if (mission.workspaceDir === undefined)
      throw new TypeError(`Expected a mission with a workspace for --agent, got mission ${mission.id} without one`);
    const prices = options.meterPrices === undefined ? undefined : await readPrices(options.meterPrices);
    const meter =
      options.meterUpstream === undefined ? undefined : { upstream: options.meterUpstream, ...(prices === undefined ? {} : { prices }) };
    const preset = presetNamed(options.agent);
    if (preset !== undefined)
      return presetProposer({
        preset,
        ...(options.model === undefined ? {} : { model: options.model }),
        ...(options.baseUrl === undefined ? {} : { baseUrl: options.baseUrl }),
        ...(options.apiKeyEnv === undefined ? {} : { apiKeyEnv: options.apiKeyEnv }),
        ...(options.agentArg === undefined ? {} : { args: options.agentArg }),
        ...(meter === undefined ? {} : { meter }),
      });
    if (options.agentArg !== undefined || options.model !== undefined || options.baseUrl !== undefined)
      throw new TypeError(
        `Expected a preset (codex, claude, qwen, gemini) for --agent with --agent-arg, --model or --base-url, got a command line: write them into the command`,
      );
    return agentProposer({ command: options.agent, ...(meter === undefined ? {} : { meter }) });
  }
  if (options.agentArg !== undefined) throw new TypeError('Expected --agent <preset> with --agent-arg, got no --agent');
  if (options.model === undefined) return undefined;
  if (options.baseUrl === undefined) throw new TypeError('Expected --base-url with --model, got none');
  const { modelProposer } = await import('../ai-sdk/model-proposer.js');
  const apiKeyEnv = options.apiKeyEnv ?? 'OPENAI_API_KEY';
  return modelProposer({ baseURL: options.baseUrl, model: options.model, apiKey: process.env[apiKeyEnv] });
}

/** The run's start: how its snapshot and check copy were had; a note on symlinks of the workspace that lead outside it, which programs can write through. */
function startLines(record: TypedRecord<'run.started'>): string | undefined {
  const { workspace } = record.data;
  if (workspace === undefined) return undefined;
  // What the snapshot cost and whether the cached copy served: a first run on a workspace writes its copies.
  const lines = [
    `  snapshot: ${workspace.entries} entries${snapshotHow(workspace)}${workspace.snapshotMs === undefined ? '' : ` · ${duration(workspace.snapshotMs)}`}`,
  ];
  const links = workspace.linksOutside;
  if (links !== undefined && record.data.sandbox === undefined) {
    const shown = links.paths.slice(0, 3).map(clean).join(', ');
    lines.push(
      `  note: ${links.count} symlink(s) of the workspace lead outside it (${shown}${links.count > 3 ? ', …' : ''}); the copies keep them, so checks and agents can write through them unless the mission sets sandbox: bwrap`,
    );
  }
  return lines.join('\n');
}

/** Notes on the run's start: the run it resolves, and a same-plan refusal it overrode. */
function linkLines(record: TypedRecord<'run.started'>): string[] {
  const { resolves, samePlanForced: forced } = record.data;
  return [
    ...(resolves === undefined
      ? []
      : [
          `  resolves run ${clean(resolves.runId)} (${clean(String(resolves.outcome))} / ${clean(String(resolves.stopReason))}): a linked run`,
        ]),
    ...(forced === undefined
      ? []
      : [
          `  note: same plan as run ${clean(forced.runId)} (${clean(String(forced.stopReason))}), run anyway with --force-same-plan (recorded)`,
        ]),
  ];
}

/** `840 ms`, `12.3 s`. */
function duration(ms: number): string {
  return ms < 1000 ? `${ms} ms` : `${(ms / 1000).toFixed(1)} s`;
}

/** What the checks found (baseline or attempt), then how long each check that ran took. */
function checksLine(label: string, findings: readonly Finding[]): string {
  const bad = findings.filter((item) => item.status === 'fail' || item.status === 'error');
  const score = findings.find((item) => item.score !== undefined)?.score;
  const what =
    bad.length === 0
      ? 'all checks passed'
      : `${bad.length} failing: ${bad
          .slice(0, 2)
          .map((item) => clean(item.reasonCodes[0] ?? item.check))
          .join(', ')}${bad.length > 2 ? ', …' : ''}`;
  const timed = new Map<string, number>();
  for (const item of findings) if (item.durationMs !== undefined && !timed.has(item.check)) timed.set(item.check, item.durationMs);
  const took = [...timed].map(([check, ms]) => `${clean(check)} ${duration(ms)}`).join(', ');
  return `  ${label}: ${what}${score === undefined ? '' : ` (score ${score.toFixed(2)})`}${took === '' ? '' : ` · ${took}`}`;
}

function attemptLine(record: RunRecord): string | undefined {
  if (record.type === 'run.started') return startLines(record);
  if (record.type === 'baseline')
    return [
      checksLine('baseline', record.data.findings),
      ...Object.entries(record.data.inventories ?? {}).map(([check, inventory]) => `    ${clean(check)}: ${inventoryLine(inventory)}`),
    ].join('\n');
  if (record.type !== 'attempt') return undefined;
  const findings = record.data.findings ?? [];
  // No check ran on an attempt that changed nothing: its first finding says so, with the proposer's account.
  if (record.data.summary?.noChange === true)
    return `  attempt ${record.data.attempt}: ${clean(findings[0]?.message.split('\n')[0] ?? '')}`;
  return checksLine(`attempt ${record.data.attempt}`, findings);
}

/** Whether an unsealed run of the ledger (of `missionId`, when given) started under review (see `startedUnderReview`). */
async function anyStartedUnderReview(ledger: Ledger, missionId: string | undefined): Promise<boolean> {
  for (const run of await ledger.runs({ unsealed: true })) {
    if (missionId !== undefined && run.missionId !== missionId) continue;
    const [started] = await ledger.records(run.runId);
    if (started?.type === 'run.started' && startedUnderReview(started.data)) return true;
  }
  return false;
}

export interface RecoverWithQueueOptions {
  readonly ledger: Ledger;
  /** Where the ledger is: its review queue is opened there when a run to recover started under one. */
  readonly location: string;
  readonly output: Output;
  /** The review queue, when the caller has it (open, or to open when first needed). */
  readonly handoff?: RunHandoff;
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
 * Recovers the ledger's crashed runs. Those that started under review go to the queue when they are
 * sealed: through `handoff` when the caller has one, else through the queue in the ledger at `location`,
 * opened (created) by the first seal that needs it — so no command recovers such a run past the queue.
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
  if (handoff !== undefined || !(await anyStartedUnderReview(ledger, missionId)))
    return recoverRuns({ ledger, ...scope, ...(handoff === undefined ? {} : { handoff }) });
  const queue = queueOnFirstNeed(location, {}, output, signer);
  try {
    return await recoverRuns({ ledger, ...scope, handoff: queue.handoff });
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

/** Where the run's review went: the ledger (as the summary names it), and whether its queue was created for this run. */
interface ReviewPlace {
  readonly ledgerName: string;
  readonly created: boolean;
}

/** What the queue did with a run, from its seal record, as lines: where an enqueued run went and the commands that review it. */
function reviewLines(handoff: HandoffResult, choice: ReviewChoice | undefined, { ledgerName, created }: ReviewPlace): string[] {
  const tags = 'tags' in handoff ? handoff.tags : [];
  const what = handoff.enqueued
    ? `enqueued as item ${clean(String(handoff.itemId))}${tags.length === 0 ? '' : ` (${clean(tags.join(', '))})`}`
    : `not enqueued (${clean('reason' in handoff ? handoff.reason : 'dropped at capacity')})`;
  const queued = 'mode' in handoff ? handoff : undefined;
  const dropped = queued?.dropped;
  const mode = queued?.modeChanged;
  // Why a run went to the queue without --review; one the default route left out needs no reason.
  const why =
    choice !== 'default' || !handoff.enqueued
      ? ''
      : created
        ? ' (by default: a review queue created in the ledger; --no-review opts out)'
        : ' (by default: the ledger has a review queue; --no-review opts out)';
  const ledger = clean(shellArg(ledgerName));
  return [
    `review        ${what}${queued === undefined ? '' : ` · queue ${queued.mode}`}${why}`,
    ...(handoff.enqueued ? [`              review it: redline review serve --ledger ${ledger} (or list, claim, verdict)`] : []),
    ...(dropped === undefined
      ? []
      : [`              dropped item ${clean(dropped.itemId)} (run ${clean(dropped.runId)}) at capacity: see redline review stats`]),
    ...(mode === undefined ? [] : [`              queue mode ${mode.from} → ${mode.to} at depth ${mode.depth}`]),
  ];
}

/** One mission of `redline run` or `redline demo`, loaded, with what it runs against. */
export interface MissionFileRun {
  readonly mission: Mission;
  readonly ledger: Ledger;
  /** How the summary names the ledger (its location as given). */
  readonly ledgerName: string;
  readonly options: RunCommandOptions;
  readonly output: Output;
  readonly handoff?: RunHandoff | undefined;
  /** With a deferred `handoff`: the queue it opened, if a seal needed it (the summary says it was created). */
  readonly deferredQueue?: QueueOnFirstNeed | undefined;
  readonly signer?: Signer | undefined;
  /** How the run came to the review queue (see {@link routeReview}). */
  readonly review?: ReviewChoice | undefined;
  readonly judge?: Judge | undefined;
}

/** Runs one loaded mission against an open ledger and prints its summary. */
export async function runMissionFile({
  mission,
  ledger,
  ledgerName,
  options,
  output: { print, progress },
  handoff,
  deferredQueue,
  signer,
  review,
  judge,
}: MissionFileRun): Promise<RunResult> {
  const proposer = await proposerFromFlags(mission, options);
  if (options.json !== true) progress(`mission ${clean(mission.id)}: ${clean(mission.goal.split('\n')[0] ?? '')}`);
  const cacheDir =
    options.cache === false ? undefined : options.cacheDir === undefined ? defaultCacheDir() : path.resolve(options.cacheDir);
  // The seal as this run appended it: its handoff is what the summary tells of the queue.
  let seal: RunRecord | undefined;
  const result = await runMission({
    mission,
    ledger,
    ...(cacheDir === undefined ? {} : { cacheDir }),
    ...(options.cacheMaxSize === undefined ? {} : { cacheMaxBytes: options.cacheMaxSize }),
    ...(proposer === undefined ? {} : { proposer }),
    ...(options.approve === undefined ? {} : { approvals: options.approve }),
    ...(handoff === undefined ? {} : { handoff }),
    ...(signer === undefined ? {} : { signer }),
    ...(review === undefined ? {} : { review }),
    ...(options.resolves === undefined ? {} : { resolves: options.resolves }),
    ...(options.note === undefined ? {} : { note: options.note }),
    ...(options.forceSamePlan === true ? { forceSamePlan: true } : {}),
    ...(options.planLabel === undefined ? {} : { planLabel: options.planLabel }),
    ...(judge === undefined ? {} : { judge }),
    onRecord: (record) => {
      if (record.type === 'run.sealed') seal = record;
      // The link and a forced plan are said on stderr even with --json: they change what the run means.
      if (record.type === 'run.started') for (const line of linkLines(record)) progress(line);
      const line = options.json === true ? undefined : attemptLine(record);
      if (line !== undefined) progress(line);
    },
  });
  const sealed = handoff !== undefined && seal?.type === 'run.sealed' ? seal.data.handoff : undefined;
  // On the default route a verified run needed no review: its summary says nothing of the queue.
  const handed = review === 'default' && sealed !== undefined && 'reason' in sealed && sealed.reason === 'verified' ? undefined : sealed;
  // A deferred queue this run's seal opened was created for it (of runs sharing it, the first to need it).
  const created = handed?.enqueued === true && deferredQueue?.openedBy() === result.runId;
  // The summary says why a run went to the queue without --review, and that one opted out of it did not.
  const queued =
    handed === undefined
      ? undefined
      : { ...handed, ...(review === 'default' ? { by: 'default' } : {}), ...(created ? { queueCreated: true } : {}) };
  if (options.json === true)
    print(
      jsonLine({
        ...runSummary(result),
        ...(queued === undefined ? {} : { review: queued }),
        ...(review === 'opted_out' ? { review: { enqueued: false, reason: 'opted out (--no-review)' } } : {}),
      }),
    );
  else
    print(
      [
        describeRun(result, `redline ledger show ${result.runId} --ledger ${shellArg(ledgerName)}`),
        ...(handed === undefined ? [] : reviewLines(handed, review, { ledgerName, created })),
        ...(review === 'opted_out' ? ['review        not enqueued (--no-review)'] : []),
      ].join('\n'),
    );
  return result;
}

/** Whether the mission's judge is a person, who answers through the review queue. */
function judgedByHuman(mission: Mission): boolean {
  return mission.judge === 'human' || (typeof mission.judge === 'object' && mission.judge.kind === 'human');
}

/** A mission made ready to run: its ledger, signer, review queue and judge open, its crashed runs recovered. */
export interface PreparedRun {
  /** Runs the mission and prints its summary. */
  readonly run: () => Promise<RunResult>;
  /** Closes what preparing opened (the review queue); the ledger belongs to `ledgers`. */
  readonly close: () => Promise<void>;
}

/**
 * Prepares one mission file of `redline run`: loads it, opens its ledger through `ledgers` (default
 * `.redline/redline.db` next to the mission), its signer and review queue, and recovers its crashed runs.
 */
export async function prepareRun(file: string, options: RunCommandOptions, output: Output, ledgers: SharedLedgers): Promise<PreparedRun> {
  const mission = await loadMission(file);
  const location = ledgerLocation(options.ledger, mission.baseDir);
  if (options.review === false && (options.sampleRate !== undefined || options.alertWebhook !== undefined))
    throw new TypeError('Expected review with --sample-rate or --alert-webhook, got --no-review');
  const ledger = await ledgers.open(location);
  let queue: ReviewQueue | undefined;
  try {
    // Opened before anything runs, so a bad key refuses the run instead of leaving it unsealed.
    const { signer } = await openSigner({ explicit: options.signingKey, location });
    // The ledger's queue takes what a run could not verify, and a sample of what it accepted on incomplete
    // signals, unless --no-review says otherwise; a ledger without one gets one when a run first needs it.
    const route = await routeReview({
      requested: options.review,
      queueExists: () => reviewQueueExists(location),
      sampleRate: options.sampleRate,
    });
    const { review } = route;
    // A human judge asks the queue in the ledger's storage, whatever the review choice: it exists from now on.
    const human = judgedByHuman(mission);
    queue = (route.handsOff && !route.deferred) || human ? await openReviewQueue(location, { signer }) : undefined;
    const deferred =
      route.handsOff && queue === undefined
        ? ledgers.queueOnFirstNeed(location, () => queueOnFirstNeed(location, options, output, signer))
        : undefined;
    const handoff: RunHandoff | undefined = !route.handsOff
      ? undefined
      : queue === undefined
        ? deferred?.handoff
        : reviewHandoff(queue, options, output);
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
    const opened = queue;
    return {
      run: async () =>
        runMissionFile({
          mission,
          ledger,
          ledgerName: displayLocation(location),
          options,
          output,
          handoff,
          deferredQueue: deferred,
          signer,
          review,
          judge,
        }),
      // A deferred queue is the ledgers' to close: other runs of the command may share it.
      close: async () => opened?.close(),
    };
  } catch (error) {
    await queue?.close();
    throw error;
  }
}

/** `redline run` with one mission file: opens the ledger (default `.redline/redline.db` next to the mission), recovers, runs. */
export async function runCommand(file: string, options: RunCommandOptions, output: Output): Promise<number> {
  const ledgers = new SharedLedgers();
  try {
    const prepared = await prepareRun(file, options, output, ledgers);
    try {
      return exitCodeOf(await prepared.run());
    } finally {
      await prepared.close();
    }
  } finally {
    await ledgers.close();
  }
}
