// One process of the tracing-overhead benchmark: times one mode and prints µs per attempt of each run as JSON.
import { TRACING_MODES, timeTracing, type TracingMode } from './tracing-overhead.js';

const [mode, attempts, rounds, warmUpRuns] = process.argv.slice(2);
if (!TRACING_MODES.includes(mode as TracingMode)) throw new TypeError(`Expected one of ${TRACING_MODES.join(', ')}, got ${String(mode)}`);
process.stdout.write(
  JSON.stringify(
    await timeTracing(mode as TracingMode, { attemptsPerRun: Number(attempts), rounds: Number(rounds), warmUpRuns: Number(warmUpRuns) }),
  ),
);
