import type { Ledger, LedgerRecord } from '../../src/ledger/ledger.js';

// Runs as the loop records them, written straight to a ledger: what the runs pages' tests, the browser
// tests and the screenshots show. `hostile` runs carry an agent's worst text in every field a page shows.

/** Markup, a terminal escape (clear screen), a right-to-left override and a zero-width space. */
export const HOSTILE = 'x <script>alert(1)</script> \u001b[2J \u202eevil\u202c \u200b';

const counters = (attempts: number, costUsd: number, elapsedMs: number) => ({
  attempts,
  inputTokens: 1_200 * attempts,
  outputTokens: 300 * attempts,
  costUsd,
  elapsedMs,
  sinceProgress: 0,
  failedRounds: 0,
});

const finding = (check: string, status: 'pass' | 'fail', message = '', extra: Record<string, unknown> = {}) => ({
  check,
  stage: 'fast',
  tier: 'demand',
  status,
  reasonCodes: status === 'fail' ? ['test_failed'] : [],
  message,
  ...extra,
});

export interface FixtureRun {
  readonly runId: string;
  readonly missionId?: string;
  readonly taskType?: string;
  readonly at: number;
  /** Text an agent wrote: in file names, findings, the transcript and the mission. */
  readonly agentText?: string;
  /** Leave the run unsealed (running). */
  readonly running?: boolean;
  readonly outcome?: 'complete' | 'failed_with_evidence';
  readonly resolves?: string;
  /** The guards the run starts with (the runtime's and the mission's). */
  readonly guards?: readonly string[];
  /** The seal's stop reason; by default the outcome's usual one. */
  readonly stopReason?: string;
  /** The shadow checks' verdict on the candidate the run stopped on; none by default. */
  readonly shadow?: 'pass' | 'fail' | 'error';
}

/** The records of one plausible run: started, baseline, two attempts with decisions, and the seal. */
export function fixtureRecords({
  runId,
  missionId = 'fix-parser',
  taskType = 'code',
  at,
  agentText = '',
  running = false,
  outcome = 'complete',
  resolves,
  guards,
  stopReason = outcome === 'complete' ? 'demand_passed' : 'no_progress',
  shadow,
}: FixtureRun): LedgerRecord[] {
  const file = `src/parse${agentText === '' ? '' : agentText}.ts`;
  const before = 'export function parse(text: string) {\n  return text.split(",");\n}\n';
  const after = 'export function parse(text: string) {\n  return text.split(",").map((part) => part.trim());\n}\n';
  const bodies: Omit<LedgerRecord, 'runId' | 'seq' | 'at'>[] = [
    {
      type: 'run.started',
      data: {
        mission: { id: missionId, taskType, goal: `trim the parts${agentText}` },
        ...(guards === undefined ? {} : { guards }),
        ...(resolves === undefined ? {} : { resolves: { runId: resolves, note: `a second try${agentText}` } }),
      },
    },
    {
      type: 'baseline',
      data: {
        findings: [finding('tests', 'fail', `expected "a" got " a"${agentText}`), finding('lint', 'pass')],
        frontier: { completed: ['lint'], failing: ['tests'], hardFailing: [], footprint: 0 },
        inventories: {
          tests: {
            cases: [
              { id: 'parse trims', status: 'fail' },
              { id: `parse splits${agentText}`, status: 'pass' },
            ],
          },
        },
      },
    },
    { type: 'decision', data: { attempt: 0, decision: { transition: 'retry', reason: 'demand_failed' } } },
    {
      type: 'attempt',
      data: {
        attempt: 1,
        candidate: { files: { [file]: 'export function parse() {}\n' }, footprint: [file], hash: 'a1'.repeat(16) },
        usage: { inputTokens: 1_200, outputTokens: 300, costUsd: 0.012 },
        findings: [finding('tests', 'fail', `still " a"${agentText}`), finding('lint', 'fail', `unused text${agentText}`)],
        summary: {
          attempt: 1,
          candidateHash: 'a1',
          signature: 's1',
          rejection: '',
          score: 0.4,
          failing: 2,
          failed: true,
          infraError: false,
          progress: false,
        },
        counters: counters(1, 0.012, 40_000),
        account: {
          kind: 'agent',
          exitCode: 0,
          durationMs: 38_000,
          stdout: { text: '', droppedBytes: 0 },
          stderr: { text: '', droppedBytes: 0 },
          transcript: { text: `I will edit the parser.${agentText}\n`, droppedBytes: 0 },
        },
      },
    },
    {
      type: 'decision',
      data: {
        attempt: 1,
        verdict: {
          guard: 'progress',
          reason: 'no_progress',
          detail: `one attempt without progress${agentText}`,
          outcome: 'failed_with_evidence',
        },
        decision: { transition: 'retry', reason: 'demand_failed' },
      },
    },
    {
      type: 'attempt',
      data: {
        attempt: 2,
        candidate: { files: { [file]: after }, footprint: [file], hash: 'b2'.repeat(16) },
        usage: { inputTokens: 1_300, outputTokens: 350, costUsd: 0.014 },
        findings: [finding('tests', 'pass'), finding('lint', 'pass')],
        summary: {
          attempt: 2,
          candidateHash: 'b2',
          signature: 's2',
          rejection: '',
          score: 0.9,
          failing: 0,
          failed: false,
          infraError: false,
          progress: true,
        },
        counters: counters(2, 0.026, 85_000),
      },
    },
  ];
  if (!running) {
    bodies.push({ type: 'decision', data: { attempt: 2, decision: { transition: 'accept', reason: 'demand_passed' } } });
    bodies.push({
      type: 'run.sealed',
      data: {
        outcome,
        verification: 'verified',
        stopReason,
        detail: `every demand check passes${agentText}`,
        attempts: 2,
        counters: counters(2, 0.026, 90_000),
        ...(shadow === undefined ? {} : { shadow: { verdict: shadow, findings: [] } }),
        brief: {
          runId,
          task: 'trim the parts',
          priority: 0,
          finalOutput: { files: { [file]: after }, baseline: { [file]: before } },
          cutoffReason: 'demand_passed',
          attempts: 2,
          verification: 'verified',
        },
      },
    });
  }
  return bodies.map((body, seq) => ({ ...body, runId, seq, at: at + seq * 10_000 }) as LedgerRecord);
}

/** Appends a fixture run's records to `ledger`, one by one as a run does. */
export async function appendRun(ledger: Ledger, run: FixtureRun): Promise<void> {
  for (const record of fixtureRecords(run)) await ledger.append(record);
}

/** The records a running fixture run appends next, from record `from` on, ending with its seal. */
export function restOfRun(run: FixtureRun, from: number): LedgerRecord[] {
  return fixtureRecords({ ...run, running: false }).slice(from);
}
