import assert from 'node:assert/strict';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { StopReason } from '../../src/index.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/**
 * Every runtime export of the root and of each subpath entry, sorted. The root holds what a user writing a
 * mission in code or embedding the loop calls; the runtime's machinery stays in its modules (src/index.ts).
 * An export added, renamed or removed fails here: change this list in the same commit, deliberately (and
 * README/docs with it).
 */
const EXPORTS: Readonly<Record<string, { readonly source: string; readonly names: readonly string[] }>> = {
  'redline-loop': {
    source: 'src/index.ts',
    names: [
      'ANY_MODEL',
      'AdaptivePriors',
      'AdmitError',
      'EscapeError',
      'JUDGE_PROTOCOL',
      'LedgerError',
      'LinkError',
      'MemoryLedger',
      'MemoryLimitStore',
      'MemoryReviewQueue',
      'MissingPeerError',
      'MissionError',
      'OUTCOMES',
      'PROPOSER_PROTOCOL',
      'ProposerError',
      'RecordParseError',
      'RedlineError',
      'ReviewError',
      'SamePlanError',
      'SandboxUnavailableError',
      'SnapshotGoneError',
      'StopReason',
      'TRANSITIONS',
      'VERDICT_LABELS',
      'WorkspaceUnreadableError',
      'adaptive',
      'adaptiveCdv',
      'admitRun',
      'agentProposer',
      'allOf',
      'anyOf',
      'assertSandboxAvailable',
      'attemptsBudget',
      'budgetAlerts',
      'budgets',
      'checkReachability',
      'commandCheck',
      'commandJudge',
      'commandProposer',
      'commandScore',
      'confirm',
      'costBudget',
      'defineMission',
      'expectedOutputCheck',
      'exportJsonl',
      'finding',
      'functionJudge',
      'functionProposer',
      'humanGate',
      'humanJudge',
      'importJsonl',
      'jsonSchemaCheck',
      'keySigner',
      'limiterOver',
      'loadMission',
      'loadReplay',
      'margin',
      'minOfTwo',
      'missionJsonSchema',
      'noProgress',
      'noiseAware',
      'not',
      'openLedger',
      'openReviewQueue',
      'oscillation',
      'plateau',
      'rateLimit',
      'readPrivateKey',
      'readPublicKey',
      'recoverRuns',
      'rejectRepeat',
      'repeatedOutput',
      'replayPolicies',
      'replayProposer',
      'resumeRun',
      'routeReview',
      'routingJudge',
      'runMission',
      'scoreCheck',
      'smooth',
      'stopQuality',
      'testRunnerCheck',
      'threshold',
      'tokensBudget',
      'verifyLedger',
      'verifyRun',
      'verifySignedRun',
      'wallClockBudget',
    ],
  },
  'redline-loop/sqlite': {
    source: 'src/sqlite.ts',
    names: ['SqliteLedger', 'SqliteReviewQueue'],
  },
  'redline-loop/postgres': {
    source: 'src/postgres.ts',
    names: ['PostgresLedger', 'PostgresReviewQueue'],
  },
  'redline-loop/ai-sdk': {
    source: 'src/ai-sdk/index.ts',
    names: ['modelJudge', 'modelProposer', 'modelScore', 'openAICompatibleModel', 'redlineStopWhen'],
  },
  'redline-loop/study': {
    source: 'src/study/index.ts',
    names: [
      'APPROVE_PROBABILITY',
      'BOUNDARY_TASKS',
      'BURST_FACTOR',
      'CONDITIONS',
      'DEFAULT_CONFIDENCES',
      'DEFAULT_SIGMAS',
      'DEFAULT_WARMUP',
      'DRAFT_QUALITY_WEIGHTS',
      'HANDOFF_CONFIGS',
      'HANDOFF_FIGURE_FILE',
      'HANDOFF_MODEL',
      'HANDOFF_VARIANTS',
      'JUDGE_PROMPTS',
      'MAX_PRIORITY',
      'PUBLISHED_TASKS',
      'QUALITY_WEIGHTS',
      'SELFJUDGE_FIGURE',
      'STRATEGY_NAMES',
      'StudyOptionError',
      'TASK_SETS',
      'TASK_TYPES',
      'assertOutDir',
      'calibrateJudge',
      'generateTasks',
      'handoffFigureSpec',
      'loadHandoffConfig',
      'normals',
      'observe',
      'parseTaskFile',
      'recentCandidates',
      'renderFigures',
      'renderHandoffFigure',
      'renderHandoffMarkdown',
      'renderHandoffSeedsMarkdown',
      'renderMarkdown',
      'renderReviewRateMarkdown',
      'renderSelfJudgeMarkdown',
      'runHandoffSeeds',
      'runHandoffStudy',
      'runSelfJudgeStudy',
      'runStopRulesStudy',
      'saysYes',
      'selfJudge',
      'selfJudgeSpec',
      'sfc32',
      'sigmaInterval',
      'simulateHandoff',
      'solveReviewRate',
      'studyTaskType',
      'trueQuality',
      'writeFigures',
      'writeHandoffFigure',
      'writeSelfJudgeFigure',
    ],
  },
  'redline-loop/testing': {
    source: 'src/testing/index.ts',
    names: ['startOpenAIStub', 'startScriptedModel'],
  },
};

describe('the public API', () => {
  for (const [entry, { source, names }] of Object.entries(EXPORTS)) {
    it(`${entry} (${source}) exports exactly the curated names`, async () => {
      // Named by its .js twin, as the sources import each other: tsx finds the .ts, a compiled tree the .js.
      const module = (await import(pathToFileURL(path.join(ROOT, source.replace(/\.ts$/, '.js'))).href)) as Record<string, unknown>;
      assert.deepEqual(Object.keys(module).sort(), names);
      for (const name of names) assert.notEqual(module[name], undefined, `${entry} exports ${name} as undefined`);
    });
  }

  it('lists every subpath package.json exports, built from these sources', async () => {
    const { name, exports } = (await import(pathToFileURL(path.join(ROOT, 'package.json')).href, { with: { type: 'json' } })).default as {
      name: string;
      exports: Record<string, string | { import: string }>;
    };
    // Named as a user imports them: the package name, and its subpaths under it.
    const built = Object.entries(exports)
      .filter(([subpath]) => subpath !== './package.json')
      .map(([subpath, target]) => [subpath === '.' ? name : `${name}/${subpath.slice(2)}`, (target as { import: string }).import]);
    assert.deepEqual(
      Object.fromEntries(built),
      Object.fromEntries(
        Object.entries(EXPORTS).map(([entry, { source }]) => [entry, `./${source.replace(/^src\//, 'dist/').replace(/\.ts$/, '.js')}`]),
      ),
    );
  });

  it("names every stop reason of the runtime's own transitions, and only those", async () => {
    // Every name is one the runtime stops with somewhere in src/, and the runtime stops with no other.
    const used = new Set<string>();
    for (const file of await readdir(path.join(ROOT, 'src'), { recursive: true })) {
      if (!file.endsWith('.ts') || file === path.join('core', 'outcome.ts')) continue;
      for (const [, name] of (await readFile(path.join(ROOT, 'src', file), 'utf8')).matchAll(/\bStopReason\.(\w+)/g))
        used.add(name as string);
    }
    assert.deepEqual([...used].sort(), Object.keys(StopReason).sort());
    // The values are part of the record format: a change here is a change of every ledger's meaning.
    assert.deepEqual(StopReason, {
      demandPassed: 'demand_passed',
      baselinePassed: 'baseline_passed',
      scopeViolation: 'scope_violation',
      approvalMissing: 'approval_missing',
      invalidDecision: 'invalid_decision',
      aborted: 'aborted',
      budgetWallClock: 'budget_wall_clock',
      runtimeError: 'runtime_error',
      crashed: 'crashed',
      environment: 'environment',
      unreachable: 'unreachable',
      noChange: 'no_change',
      noDemandSignal: 'no_demand_signal',
      humanApproved: 'human_approved',
      humanRejected: 'human_rejected',
      humanTimeout: 'human_timeout',
      humanUnavailable: 'human_unavailable',
    });
  });
});
