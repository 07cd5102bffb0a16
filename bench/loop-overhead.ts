// Per-attempt runtime overhead of the refinement loop: a no-op proposer and a no-op check, in memory,
// redline's runMission next to a LangGraph JS two-node propose/check cycle with its in-memory
// checkpointer, in the same process run.
import { Annotation, END, MemorySaver, START, StateGraph } from '@langchain/langgraph';
import { finding, type Check } from '../src/checks/check.js';
import { MemoryLedger } from '../src/ledger/memory/memory-ledger.js';
import { runMission } from '../src/loop/run-mission.js';
import { defineMission } from '../src/mission/mission.js';
import { functionProposer } from '../src/proposers/function-proposer.js';

export interface LoopOverheadResult {
  readonly attemptsPerRun: number;
  readonly rounds: number;
  readonly redlineUsPerAttempt: number;
  readonly langgraphUsPerAttempt: number;
  readonly ratio: number;
}

const noopCheck: Check = {
  name: 'noop',
  stage: 'fast',
  tier: 'demand',
  required: true,
  run: async () => [finding(noopCheck, 'fail', ['noop.fail'], 'no-op')],
};

async function redlineRun(attempts: number): Promise<number> {
  const mission = defineMission({ id: 'bench', goal: 'no-op', budgets: { maxAttempts: attempts }, stopPolicy: { guards: [] } });
  const proposer = functionProposer(() => ({ value: 'same' }));
  const started = performance.now();
  const result = await runMission({ mission, proposer, checks: [noopCheck], ledger: new MemoryLedger() });
  const elapsed = performance.now() - started;
  if (result.attempts !== attempts) throw new Error(`redline ran ${result.attempts} attempts, expected ${attempts}`);
  return elapsed;
}

const LoopState = Annotation.Root({
  attempt: Annotation<number>({ reducer: (_, next) => next, default: () => 0 }),
  candidate: Annotation<string>({ reducer: (_, next) => next, default: () => '' }),
  passed: Annotation<boolean>({ reducer: (_, next) => next, default: () => false }),
});

function langgraphApp(attempts: number) {
  return new StateGraph(LoopState)
    .addNode('propose', (state) => ({ attempt: state.attempt + 1, candidate: 'same' }))
    .addNode('check', () => ({ passed: false }))
    .addEdge(START, 'propose')
    .addEdge('propose', 'check')
    .addConditionalEdges('check', (state) => (state.passed || state.attempt >= attempts ? END : 'propose'))
    .compile({ checkpointer: new MemorySaver() });
}

async function langgraphRun(attempts: number, thread: number): Promise<number> {
  const app = langgraphApp(attempts);
  const started = performance.now();
  const final = await app.invoke({}, { configurable: { thread_id: `bench-${thread}` }, recursionLimit: attempts * 2 + 10 });
  const elapsed = performance.now() - started;
  if (final.attempt !== attempts) throw new Error(`LangGraph ran ${final.attempt} attempts, expected ${attempts}`);
  return elapsed;
}

/** Runs of each loop before the measured rounds. */
const WARM_UP_RUNS = 5;

const median = (values: readonly number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] as number;
};

/** Alternates the two loops for `rounds` rounds after a warm-up and reports medians per attempt. */
export async function loopOverhead({ attemptsPerRun = 500, rounds = 7 }: { attemptsPerRun?: number; rounds?: number } = {}): Promise<LoopOverheadResult> {
  // Both loops warm up alike (the JIT settles within a few runs), so the rounds measure steady state.
  for (let warm = 0; warm < WARM_UP_RUNS; warm += 1) {
    await redlineRun(attemptsPerRun);
    await langgraphRun(attemptsPerRun, -1 - warm);
  }
  const redline: number[] = [];
  const langgraph: number[] = [];
  for (let round = 0; round < rounds; round += 1) {
    redline.push((await redlineRun(attemptsPerRun)) / attemptsPerRun);
    langgraph.push((await langgraphRun(attemptsPerRun, round)) / attemptsPerRun);
  }
  const redlineUs = median(redline) * 1000;
  const langgraphUs = median(langgraph) * 1000;
  return { attemptsPerRun, rounds, redlineUsPerAttempt: redlineUs, langgraphUsPerAttempt: langgraphUs, ratio: langgraphUs / redlineUs };
}
