// Per-attempt runtime overhead of the refinement loop: a no-op proposer and a no-op check, in memory,
// redline's runMission next to a LangGraph JS two-node propose/check cycle with its in-memory
// checkpointer, each timed in processes of its own within the same benchmark run.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { Annotation, END, MemorySaver, START, StateGraph } from '@langchain/langgraph';
import { median, redlineRun } from './noop-run.js';

export interface LoopOverheadResult {
  readonly attemptsPerRun: number;
  readonly rounds: number;
  readonly redlineUsPerAttempt: number;
  readonly langgraphUsPerAttempt: number;
  readonly ratio: number;
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

/** Runs of each loop before the measured rounds: redline's settle after ~15 (JIT tiers, heap sizing); LangGraph's from the first. */
const WARM_UP_RUNS = 20;

export type LoopName = 'redline' | 'langgraph';

/** In this process: warms `loop` up, then times `rounds` runs; µs per attempt of each. */
export async function timeLoop(
  loop: LoopName,
  { attemptsPerRun, rounds, warmUpRuns = WARM_UP_RUNS }: { attemptsPerRun: number; rounds: number; warmUpRuns?: number },
): Promise<number[]> {
  const run = (index: number): Promise<number> => (loop === 'redline' ? redlineRun(attemptsPerRun) : langgraphRun(attemptsPerRun, index));
  for (let warm = 0; warm < warmUpRuns; warm += 1) await run(-1 - warm);
  const perAttempt: number[] = [];
  for (let round = 0; round < rounds; round += 1) perAttempt.push(((await run(round)) / attemptsPerRun) * 1000);
  return perAttempt;
}

/**
 * Each loop in processes of its own — so neither pays for collecting the other's garbage — taking turns
 * (redline, LangGraph, LangGraph, redline, …) so drifts in the machine's speed hit both alike; each
 * process warms its loop up and times `rounds` runs. Reports the median over all timed runs.
 */
export async function loopOverhead({
  attemptsPerRun = 500,
  rounds = 7,
  processes = 4,
  warmUpRuns = WARM_UP_RUNS,
}: { attemptsPerRun?: number; rounds?: number; processes?: number; warmUpRuns?: number } = {}): Promise<LoopOverheadResult> {
  const times: Record<LoopName, number[]> = { redline: [], langgraph: [] };
  for (let turn = 0; turn < processes; turn += 1) {
    const order: LoopName[] = turn % 2 === 0 ? ['redline', 'langgraph'] : ['langgraph', 'redline'];
    for (const loop of order) times[loop].push(...(await inChild(loop, attemptsPerRun, rounds, warmUpRuns)));
  }
  const redlineUs = median(times.redline);
  const langgraphUs = median(times.langgraph);
  return {
    attemptsPerRun,
    rounds: rounds * processes,
    redlineUsPerAttempt: redlineUs,
    langgraphUsPerAttempt: langgraphUs,
    ratio: langgraphUs / redlineUs,
  };
}

const CHILD = fileURLToPath(new URL('./loop-overhead-child.ts', import.meta.url));

async function inChild(loop: LoopName, attemptsPerRun: number, rounds: number, warmUpRuns: number): Promise<number[]> {
  const child = spawn(process.execPath, ['--import', 'tsx', CHILD, loop, String(attemptsPerRun), String(rounds), String(warmUpRuns)], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let output = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  const [code] = (await once(child, 'exit')) as [number | null];
  if (code !== 0) throw new Error(`loop-overhead: the ${loop} process exited with ${code}`);
  return JSON.parse(output) as number[];
}
