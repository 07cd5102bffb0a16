// One process of the loop-overhead benchmark: times one loop and prints µs per attempt of each run as JSON.
import { timeLoop, type LoopName } from './loop-overhead.js';

const [loop, attempts, rounds, warmUpRuns] = process.argv.slice(2);
if (loop !== 'redline' && loop !== 'langgraph') throw new TypeError(`Expected redline or langgraph, got ${String(loop)}`);
process.stdout.write(
  JSON.stringify(
    await timeLoop(loop as LoopName, { attemptsPerRun: Number(attempts), rounds: Number(rounds), warmUpRuns: Number(warmUpRuns) }),
  ),
);
