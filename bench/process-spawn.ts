// What a PID namespace costs each program redline starts (docs/architecture.md, 'Processes'): runProcess of
// `true` and of a one-line shell command, without a namespace (process group + marker sweeps) and in one,
// the calls taking turns; then the bare spawn of `true` and through each namespace tool, to show where the
// time goes. Quick: 40 calls of each by default (`npm run bench -- process-spawn --calls N`).
import { spawn } from 'node:child_process';
import { loadavg } from 'node:os';
import { INIT_STATUS_FD, initEnv } from '../src/process/pid-init.js';
import { findPidNamespace, type PidNamespaceLauncher, type PidNamespaceTool } from '../src/process/pid-namespace.js';
import { runProcess } from '../src/process/run-process.js';

/** Milliseconds per call, median over the calls. */
export interface SpawnPair {
  readonly plainMs: number;
  readonly namespacedMs: number;
}

export interface ProcessSpawnResult {
  /** The tool runProcess wraps programs with here, or why there is none (then nothing else is measured). */
  readonly via: PidNamespaceTool | string;
  readonly calls: number;
  /** runProcess of `['true']`. */
  readonly trueCommand?: SpawnPair;
  /** runProcess of `echo $$ > /dev/null; exit 3` (through /bin/sh). */
  readonly shellCommand?: SpawnPair;
  /** A bare spawn of `true` (`plain`), and through each tool that works here, waited for to its close: ms per spawn. */
  readonly bare: Readonly<Record<string, number>>;
  /** Why the other tools do not work here. */
  readonly unavailable: readonly string[];
  /** Load average (1 min) at the end. */
  readonly load: number;
}

const median = (values: readonly number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] as number;

/** Spawns `argv` with runProcess's pipes and waits for its close. */
function spawned(argv: readonly string[], env: NodeJS.ProcessEnv): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(argv[0] as string, argv.slice(1), { env, detached: true, stdio: ['pipe', 'pipe', 'pipe', 'pipe'] });
    child.stdout?.resume();
    child.stderr?.resume();
    child.stdio[INIT_STATUS_FD]?.on('data', () => undefined);
    child.stdin?.end();
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve() : reject(new Error(`${argv[0]} exited ${code}`))));
  });
}

/** Times each of `runs` once per round, taking turns, after `warmup` rounds; medians in ms. */
async function alternate(runs: readonly (() => Promise<unknown>)[], rounds: number, warmup = 5): Promise<number[]> {
  const times = runs.map((): number[] => []);
  for (let round = 0; round < warmup + rounds; round += 1) {
    for (const [index, run] of runs.entries()) {
      const started = performance.now();
      await run();
      if (round >= warmup) times[index]?.push(performance.now() - started);
    }
  }
  return times.map(median);
}

export async function processSpawnBench({ calls = 40, warmup = 5 }: { calls?: number; warmup?: number } = {}): Promise<ProcessSpawnResult> {
  const tools = await Promise.all((['unshare', 'bwrap'] as const).map((tool) => findPidNamespace([tool])));
  const working = tools.filter((tool): tool is PidNamespaceLauncher => typeof tool !== 'string');
  const unavailable = tools.filter((tool): tool is string => typeof tool === 'string');
  const env = initEnv(process.env);
  const [plain, ...wrapped] = await alternate(
    [() => spawned(['true'], process.env), ...working.map((tool) => () => spawned(tool.argv(['true'], '/'), env))],
    calls,
    warmup,
  );
  const bare = { plain: plain as number, ...Object.fromEntries(working.map((tool, index) => [tool.via, wrapped[index] as number])) };
  const found = await findPidNamespace();
  if (typeof found === 'string') return { via: found, calls, bare, unavailable, load: loadavg()[0] as number };
  const call = (command: string | readonly string[], pidNamespace: boolean) => () =>
    runProcess({ command, cwd: '/', timeoutMs: 30_000, outputCap: 1024 * 1024, pidNamespace });
  const shell = 'echo $$ > /dev/null; exit 3';
  const [truePlain, trueNamespaced, shellPlain, shellNamespaced] = await alternate(
    [call(['true'], false), call(['true'], true), call(shell, false), call(shell, true)],
    calls,
    warmup,
  );
  return {
    via: found.via,
    calls,
    trueCommand: { plainMs: truePlain as number, namespacedMs: trueNamespaced as number },
    shellCommand: { plainMs: shellPlain as number, namespacedMs: shellNamespaced as number },
    bare,
    unavailable,
    load: loadavg()[0] as number,
  };
}
