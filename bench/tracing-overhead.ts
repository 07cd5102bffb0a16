// What tracing costs a run per attempt: the no-op loop of loop-overhead timed with @opentelemetry/api not
// installed, installed with no tracer provider registered, registered but sampling nothing, and recording
// every span into memory. Each mode in processes of its own, taking turns.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { median, redlineRun } from './noop-run.js';

export const TRACING_MODES = ['not-installed', 'no-provider', 'sampled-out', 'recording'] as const;
export type TracingMode = (typeof TRACING_MODES)[number];

export interface TracingOverheadResult {
  readonly attemptsPerRun: number;
  readonly rounds: number;
  /** Median µs per attempt of each mode. */
  readonly usPerAttempt: Readonly<Record<TracingMode, number>>;
}

/** Runs before the timed ones: the loop settles after ~15 (see loop-overhead). */
const WARM_UP_RUNS = 20;

/** In this process: sets `mode` up, warms the loop up, then times `rounds` runs; µs per attempt of each. */
export async function timeTracing(
  mode: TracingMode,
  { attemptsPerRun, rounds, warmUpRuns = WARM_UP_RUNS }: { attemptsPerRun: number; rounds: number; warmUpRuns?: number },
): Promise<number[]> {
  let afterRun = (): void => {};
  // Installed, as in an app whose other libraries load the API: loaded, nothing registered.
  if (mode === 'no-provider') await import('@opentelemetry/api');
  if (mode === 'sampled-out' || mode === 'recording') {
    const { trace } = await import('@opentelemetry/api');
    const { AlwaysOffSampler, BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } =
      await import('@opentelemetry/sdk-trace-base');
    if (mode === 'sampled-out') trace.setGlobalTracerProvider(new BasicTracerProvider({ sampler: new AlwaysOffSampler() }));
    if (mode === 'recording') {
      const exporter = new InMemorySpanExporter();
      trace.setGlobalTracerProvider(new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }));
      afterRun = () => exporter.reset();
    }
  }
  const run = async (): Promise<number> => {
    const elapsed = await redlineRun(attemptsPerRun);
    afterRun();
    return elapsed;
  };
  for (let warm = 0; warm < warmUpRuns; warm += 1) await run();
  const perAttempt: number[] = [];
  for (let round = 0; round < rounds; round += 1) perAttempt.push(((await run()) / attemptsPerRun) * 1000);
  return perAttempt;
}

const CHILD = fileURLToPath(new URL('./tracing-overhead-child.ts', import.meta.url));
/** Makes `@opentelemetry/api` resolve as if it were not installed. */
const HIDE = new URL('../test/api/hide-peers.mjs', import.meta.url).href;

async function inChild(mode: TracingMode, attemptsPerRun: number, rounds: number, warmUpRuns: number): Promise<number[]> {
  const hide = mode === 'not-installed' ? ['--import', HIDE] : [];
  const child = spawn(
    process.execPath,
    [...hide, '--import', 'tsx', CHILD, mode, String(attemptsPerRun), String(rounds), String(warmUpRuns)],
    {
      stdio: ['ignore', 'pipe', 'inherit'],
      env: { ...process.env, REDLINE_TEST_HIDE: '@opentelemetry/api' },
    },
  );
  let output = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  const [code] = (await once(child, 'exit')) as [number | null];
  if (code !== 0) throw new Error(`tracing-overhead: the ${mode} process exited with ${code}`);
  return JSON.parse(output) as number[];
}

/** Each mode in `processes` processes of its own, the order rotated per turn; the median over all timed runs. */
export async function tracingOverhead({
  attemptsPerRun = 500,
  rounds = 7,
  processes = 2,
  warmUpRuns = WARM_UP_RUNS,
}: { attemptsPerRun?: number; rounds?: number; processes?: number; warmUpRuns?: number } = {}): Promise<TracingOverheadResult> {
  const times = Object.fromEntries(TRACING_MODES.map((mode) => [mode, [] as number[]])) as Record<TracingMode, number[]>;
  for (let turn = 0; turn < processes; turn += 1) {
    const order = turn % 2 === 0 ? TRACING_MODES : [...TRACING_MODES].reverse();
    for (const mode of order) times[mode].push(...(await inChild(mode, attemptsPerRun, rounds, warmUpRuns)));
  }
  const usPerAttempt = Object.fromEntries(TRACING_MODES.map((mode) => [mode, median(times[mode])])) as Record<TracingMode, number>;
  return { attemptsPerRun, rounds: rounds * processes, usPerAttempt };
}
