// The table bench/scale prints: per backend and operation, wall time and peak memory at each N, then the
// ratios issue 11's Done-when asks for, with pass/fail marks.
import type { Measured, Operation, ScaleBenchResult, ScaleSize } from './scale.js';

/** Done-when: peak memory at the largest N within this factor of the smallest's (flat). */
const FLAT_MEMORY = 1.2;
/** Done-when: wall time at the largest N within this factor of linear from the smallest's. */
const LINEAR_TIME = 1.3;
/** Done-when: the SQLite ledger at most this factor of its JSONL export. */
const FILE_OVER_JSONL = 1.3;

const LABELS: Record<Operation, string> = {
  verify: 'ledger verify',
  replay: 'replay --policy confirm-2',
  export: 'ledger export',
  read: 'plain streaming read',
};

const mark = (ok: boolean): string => (ok ? '✓' : '✗');
const megabytes = (bytes: number | undefined): string => (bytes === undefined ? '?' : `${Math.round(bytes / 1e6)} MB`);
const seconds = (value: number): string => `${value.toFixed(value < 10 ? 2 : 1)} s`;
const kilobytes = (bytes: number): string => `${(bytes / 1e3).toFixed(1)} KB`;
const count = (value: number): string => value.toLocaleString('en-US');

function outcome(measured: Measured): string {
  if (measured.exitCode === 0) return `pass (${seconds(measured.seconds)}, peak ${megabytes(measured.peakBytes)})`;
  return `FAIL (exit ${measured.exitCode ?? measured.signal} after ${seconds(measured.seconds)}: ${measured.failure ?? 'no message'})`;
}

/** The bench's report as printed: one table per backend, then the sizes. */
export function scaleReport(result: ScaleBenchResult): string {
  const lines: string[] = [];
  const first = result.backends[0]?.sizes;
  const records = first === undefined ? [] : first.map((size) => (size.records / size.runs).toFixed(1));
  lines.push(
    `scale: ledgers of ${first?.map((size) => count(size.runs)).join(' / ')} generated runs (${records.join(' / ')} records a run), each operation a child process of the built CLI (peak RSS its own); load average ${result.load.before.toFixed(1)} before, ${result.load.after.toFixed(1)} after`,
    `  ledgers cached in ${result.cacheDir} (by run count and a hash of src/ledger/ and the generator); ${result.generatedSeconds > 0 ? `writing the missing ones took ${seconds(result.generatedSeconds)}` : 'all from the cache'}`,
  );
  for (const { backend, sizes, smallHeapReplay } of result.backends) {
    const small = sizes[0] as ScaleSize;
    const large = sizes.at(-1) as ScaleSize;
    const scale = large.runs / small.runs;
    const heading = sizes.map((size) => `${`${count(size.runs)} runs: wall`.padStart(18)}  ${'peak'.padStart(7)}`).join('');
    lines.push(
      `  ${backend.padEnd(28)}${heading}   time ÷ linear (≤ ${LINEAR_TIME}×)   memory (≤ ${FLAT_MEMORY}×)   at ${count(large.runs)}: × plain read (time, memory)`,
    );
    for (const operation of ['verify', 'replay', 'export', 'read'] as const) {
      const cells = sizes.map(
        (size) =>
          `${seconds(size.operations[operation].seconds).padStart(18)}  ${megabytes(size.operations[operation].peakBytes).padStart(7)}`,
      );
      const smallRun = small.operations[operation];
      const largeRun = large.operations[operation];
      const time = largeRun.seconds / smallRun.seconds / scale;
      const memory =
        largeRun.peakBytes === undefined || smallRun.peakBytes === undefined ? undefined : largeRun.peakBytes / smallRun.peakBytes;
      const judged = operation !== 'read';
      const timeCell = `${time.toFixed(2)}×${judged ? ` ${mark(time <= LINEAR_TIME)}` : '  '}`;
      const memoryCell = memory === undefined ? '?' : `${memory.toFixed(2)}×${judged ? ` ${mark(memory <= FLAT_MEMORY)}` : '  '}`;
      const read = large.operations.read;
      const vsRead =
        operation === 'read'
          ? ''
          : `${(largeRun.seconds / read.seconds).toFixed(1)}×, ${largeRun.peakBytes === undefined || read.peakBytes === undefined ? '?' : (largeRun.peakBytes / read.peakBytes).toFixed(1)}×`;
      lines.push(
        `    ${LABELS[operation].padEnd(26)}${cells.join('')}   ${timeCell.padStart(21)}   ${memoryCell.padStart(15)}   ${vsRead}`,
      );
    }
    lines.push(
      `    replay at ${count(large.runs)} runs, NODE_OPTIONS=--max-old-space-size=256: ${mark(smallHeapReplay.exitCode === 0)} ${outcome(smallHeapReplay)}`,
    );
    const exportPerRun = sizes.map((size) => kilobytes(size.exportBytes / size.runs)).join(' / ');
    lines.push(`    JSONL export ${exportPerRun} per run (${megabytes(large.exportBytes)} at ${count(large.runs)})`);
    if (large.fileBytes !== undefined) {
      const ratio = large.fileBytes / large.exportBytes;
      lines.push(
        `    SQLite file ${sizes.map((size) => kilobytes((size.fileBytes ?? 0) / size.runs)).join(' / ')} per run (${megabytes(large.fileBytes)} at ${count(large.runs)}); file ÷ JSONL export ${ratio.toFixed(2)}× ${mark(ratio <= FILE_OVER_JSONL)} (≤ ${FILE_OVER_JSONL}×)`,
      );
    }
  }
  return lines.join('\n');
}
