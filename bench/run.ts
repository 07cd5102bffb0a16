// `npm run bench`: runs every benchmark and prints the measurements side by side with what they compare to.
import { loopOverhead } from './loop-overhead.js';

const only = process.argv[2];
const benches: Record<string, () => Promise<string>> = {
  'loop-overhead': async () => {
    const result = await loopOverhead();
    return [
      `loop-overhead: ${result.attemptsPerRun} attempts per run, median of ${result.rounds} rounds, no-op proposer and check, in-memory state`,
      `  redline runMission (MemoryLedger)          ${result.redlineUsPerAttempt.toFixed(1).padStart(8)} µs/attempt`,
      `  LangGraph JS StateGraph (MemorySaver)      ${result.langgraphUsPerAttempt.toFixed(1).padStart(8)} µs/attempt`,
      `  ratio LangGraph / redline                  ${result.ratio.toFixed(1).padStart(8)}×  (target ≥ 20×)`,
    ].join('\n');
  },
};

for (const [name, bench] of Object.entries(benches)) {
  if (only !== undefined && only !== name) continue;
  console.log(await bench());
}
