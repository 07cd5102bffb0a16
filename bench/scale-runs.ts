// Realistic recorded runs for bench/scale, built in memory: the records `runMission` writes for the
// example missions (examples/), with the same fields and about the same sizes, chained and sealed.
import { createHash } from 'node:crypto';
import { chainRecord } from '../src/ledger/chain.js';
import { GENESIS } from '../src/core/hash-chain.js';
import type { LedgerRecord, RunRow, StoredRecord } from '../src/ledger/ledger.js';
import { signSeal, type Signer } from '../src/ledger/seal-signature.js';

/** Attempts a run may make; a run makes 1 to this many (4.5 on average: 13 records a run). */
const MAX_ATTEMPTS = 8;
const sha = (text: string): string => createHash('sha256').update(text).digest('hex');

/** A small deterministic PRNG (mulberry32), so that a run's contents depend only on its index. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const TESTS = [
  'slugify > lower-cases and joins words with "-"',
  'slugify > collapses runs of spaces',
  'slugify > drops punctuation',
  'slugify > trims leading and trailing separators',
  'slugify > keeps digits',
  'slugify > an empty title gives an empty slug',
];

const GOAL =
  'Implement slugify(title) in src/slugify.js: lower case; every run of characters other than letters and digits becomes a single "-"; no leading or trailing "-". Do not change the tests.';

const SOURCE = (variant: number): string =>
  `/**\n * Turns a title into a URL slug: lower case, runs of anything but letters and digits become one "-",\n * no leading or trailing "-".\n * @param {string} title\n * @returns {string}\n */\nexport function slugify(title) {\n  return title\n    .toLowerCase()\n    .replace(/[^a-z0-9]+/g, '-')${variant % 2 === 0 ? "\n    .replace(/^-+|-+$/g, '')" : ''};\n}\n// variant ${variant}\n`;

/** The mission as `run.started` records it: a test-runner demand check and a review score (for score rules). */
function mission(index: number): Record<string, unknown> {
  return {
    approvals: [],
    baseDir: `/home/team/missions/slugify-${index % 40}`,
    budgets: { maxAttempts: MAX_ATTEMPTS, maxCostUsd: 2 },
    checks: [
      {
        command: 'node --test --test-reporter=tap test/slugify.test.js',
        format: 'tap',
        kind: 'test-runner',
        name: 'tests',
        outputCap: 1048576,
        required: true,
        stage: 'fast',
        tier: 'demand',
        timeout: 30000,
      },
      {
        command: ['node', '../judges/review-judge.mjs', 'rubric.json'],
        kind: 'score',
        name: 'review',
        outputCap: 1048576,
        pass: 0.8,
        required: false,
        stage: 'fast',
        tier: 'semantic',
        timeout: 30000,
      },
    ],
    declaredOutputs: [],
    goal: GOAL,
    id: `slugify-${index % 40}`,
    ignore: [],
    priority: index % 3,
    progressWindow: 3,
    proposer: { command: ['node', 'agent.mjs'], kind: 'command' },
    sandbox: 'none',
    scope: ['src/**'],
    stopPolicy: { guards: [{ threshold: { bar: 0.8 } }], onRejectedDecision: 'fail' },
    taskType: 'implement-function',
    workspace: 'workspace',
    workspaceDir: `/home/team/missions/slugify-${index % 40}/workspace`,
  };
}

function testFinding(test: string, line: number, message: string): Record<string, unknown> {
  return {
    check: 'tests',
    location: { file: 'test/slugify.test.js', line, test },
    message,
    reasonCodes: [`test.failed:${test}`],
    stage: 'fast',
    status: 'fail',
    tier: 'demand',
  };
}

/** A run id that sorts like the run's index, in UUID form. */
export function scaleRunId(index: number): string {
  return `00000000-0000-4000-8000-${index.toString(16).padStart(12, '0')}`;
}

/**
 * Run `index` of a generated ledger, chained as the ledger stores it: `run.started`, `baseline` and its
 * decision, 1–8 attempts each with its decision, and the seal (signed by `signer`). Runs whose last
 * attempt passes the tests end `complete`; the others spend the attempt budget.
 */
export function scaleRun({ index, signer, startedAt }: { index: number; signer: Signer; startedAt: number }): {
  run: RunRow;
  records: StoredRecord[];
} {
  const next = random(index + 1);
  const runId = scaleRunId(index);
  const attempts = 1 + (index % MAX_ATTEMPTS);
  const passes = attempts < MAX_ATTEMPTS || index % 16 === 7;
  let at = startedAt;
  const records: LedgerRecord[] = [];
  const push = (type: LedgerRecord['type'], data: Record<string, unknown>): void => {
    at += 50 + Math.floor(next() * 900);
    records.push({ runId, seq: records.length, type, at, data });
  };
  push('run.started', {
    approvals: [],
    checks: [
      { name: 'scope', required: true, stage: 'fast', tier: 'format' },
      { name: 'tests', required: true, stage: 'fast', tier: 'demand' },
      { name: 'review', required: false, stage: 'fast', tier: 'semantic' },
    ],
    guards: ['attemptsBudget()', 'tokensBudget()', 'wallClockBudget()', 'costBudget()', 'threshold(0.8)'],
    judge: 'routing-table',
    lookback: 3,
    mission: mission(index),
    missionHash: sha(`mission ${index % 40}`),
    owner: { host: 'ci-runner-3', pid: 1000 + (index % 30000) },
    proposer: 'command:node agent.mjs',
    workspace: { entries: 5, ignore: [], manifest: sha(`manifest ${index % 40}`), snapshotMs: 20 + (index % 17) },
  });
  const failingAll = TESTS.map((test, line) => testFinding(test, 6 + 3 * line, 'not implemented'));
  const frontierOf = (failing: readonly Record<string, unknown>[], bestScore?: number): Record<string, unknown> => ({
    ...(bestScore === undefined ? {} : { bestScore }),
    completed: ['review', 'scope', 'tests'],
    failing: failing.map((finding) => `tests:${(finding.reasonCodes as string[])[0]}`).sort(),
    footprint: bestScore === undefined ? 0 : 1,
    hardFailing: [],
  });
  push('baseline', {
    findings: [
      { check: 'scope', message: '0 path(s) within scope', reasonCodes: [], stage: 'fast', status: 'pass', tier: 'format' },
      ...failingAll,
    ],
    frontier: frontierOf(failingAll),
    isolation: { hashed: 0, resetMs: 0, restored: 0, scanned: 6 },
  });
  const counters = { attempts: 0, costUsd: 0, elapsedMs: 0, failedRounds: 0, inputTokens: 0, outputTokens: 0, sinceProgress: 0 };
  push('decision', {
    acceptance: { acceptable: false, hasDemand: true, problems: ['required check tests did not pass'] },
    attempt: 0,
    decision: { cites: ['scope', 'tests'], reason: 'baseline_not_passing', transition: 'retry' },
    state: { counters: { ...counters }, frontier: frontierOf(failingAll), recentAttempts: [] },
  });
  let best = 0;
  let candidateHash = '';
  for (let attempt = 1; attempt <= attempts; attempt += 1) {
    const last = attempt === attempts;
    const accepted = last && passes;
    // Scores climb towards the bar with judge noise; an accepted candidate scores at or above it.
    const score =
      Math.round(1000 * Math.min(1, accepted ? 0.8 + 0.2 * next() : 0.3 + (0.55 * attempt) / MAX_ATTEMPTS + 0.15 * next())) / 1000;
    const failing = accepted ? [] : failingAll.slice(0, Math.max(1, 3 - Math.floor(attempt / 2)));
    const findings = [
      { check: 'scope', message: '1 path(s) within scope', reasonCodes: [], stage: 'fast', status: 'pass', tier: 'format' },
      ...failing.map((finding) => ({
        ...finding,
        message: `Expected values to be strictly equal:\n+ actual - expected\n\n+ 'multiple---spaces-${attempt}'\n- 'multiple-spaces'\n            ^`,
      })),
      {
        check: 'review',
        message: `score ${score.toFixed(3)}${score < 0.8 ? ': separators are not collapsed; leading "-" kept' : ''}`,
        reasonCodes: score < 0.8 ? ['score.below_pass'] : [],
        score,
        stage: 'fast',
        status: score < 0.8 ? 'fail' : 'pass',
        tier: 'semantic',
      },
    ];
    const progress = score > best;
    best = Math.max(best, score);
    const inputTokens = 1500 + Math.floor(next() * 1500);
    const outputTokens = 150 + Math.floor(next() * 200);
    Object.assign(counters, {
      attempts: attempt,
      costUsd: Math.round(1e6 * (counters.costUsd + inputTokens * 3e-6 + outputTokens * 1.5e-5)) / 1e6,
      elapsedMs: counters.elapsedMs + 300 + Math.floor(next() * 900),
      failedRounds: counters.failedRounds + (accepted ? 0 : 1),
      inputTokens: counters.inputTokens + inputTokens,
      outputTokens: counters.outputTokens + outputTokens,
      sinceProgress: progress ? 0 : counters.sinceProgress + 1,
    });
    const source = SOURCE(index + attempt);
    candidateHash = sha(`${runId}/${attempt}`);
    const frontier = frontierOf(failing, best);
    push('attempt', {
      attempt,
      candidate: { files: { 'src/slugify.js': source }, footprint: ['src/slugify.js'], hash: candidateHash },
      counters: { ...counters },
      findings,
      frontier,
      isolation: { hashed: 0, resetMs: 2 + (attempt % 5), restored: 1, scanned: 6 },
      summary: {
        attempt,
        candidateHash,
        failed: !accepted,
        failing: failing.length,
        infraError: false,
        progress,
        rejection: accepted ? '' : sha(failing.map((finding) => (finding.reasonCodes as string[])[0]).join('|')).slice(0, 32),
        score,
        signature: candidateHash.slice(0, 32),
      },
      usage: { costUsd: Math.round(1e6 * (inputTokens * 3e-6 + outputTokens * 1.5e-5)) / 1e6, inputTokens, outputTokens },
    });
    push('decision', {
      acceptance: accepted
        ? { acceptable: true, hasDemand: true, problems: [] }
        : { acceptable: false, hasDemand: true, problems: ['required check tests did not pass'] },
      attempt,
      decision: accepted
        ? { cites: ['scope', 'tests', 'review'], reason: 'demand_passed', transition: 'accept' }
        : { cites: ['scope', 'tests', 'review'], reason: 'checks_failing', transition: 'retry' },
      state: {
        counters: { ...counters },
        frontier,
        recentAttempts: Array.from({ length: Math.min(3, attempt) }, (_, k) => attempt - k).reverse(),
      },
    });
  }
  const outcome = passes ? 'complete' : 'failed_with_evidence';
  const stopReason = passes ? 'demand_passed' : 'budget_attempts';
  const verification = passes ? 'verified' : 'unverified';
  push('run.sealed', {
    attempts,
    baseline: { files: { 'src/slugify.js': sha(`baseline ${index % 40}`) }, manifest: sha(`manifest ${index % 40}`) },
    candidateHash,
    counters: { ...counters },
    detail: passes ? 'every demand check passed' : `${MAX_ATTEMPTS} of ${MAX_ATTEMPTS} attempts used`,
    ...(passes ? {} : { guard: 'attemptsBudget()' }),
    outcome,
    stopReason,
    verification,
  });

  let prevHash = GENESIS;
  const stored = records.map((record) => {
    const row = chainRecord(prevHash, record.type === 'run.sealed' ? signSeal({ signer, prevHash, seal: record }) : record);
    prevHash = row.hash;
    return row;
  });
  const run: RunRow = {
    runId,
    missionId: `slugify-${index % 40}`,
    taskType: 'implement-function',
    startedAt,
    recordCount: stored.length,
    lastHash: prevHash,
    sealed: true,
    outcome,
    verification,
    stopReason,
  };
  return { run, records: stored };
}
