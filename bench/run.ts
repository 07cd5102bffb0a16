// `npm run bench`: runs every benchmark (`npm run bench -- NAME [options]` one) and prints the measurements side by side with what they compare to.
// `--quick` (anywhere; `npm run bench:quick` runs every bench so) runs each at small sizes in a few seconds: CI runs it, so a bench
// that no longer runs fails CI. Its figures only show that the bench works.
import { cliStartBench } from './cli-start.js';
import { ledgerBench, type BackendResult } from './ledger.js';
import { realOverheadBench } from './real-overhead.js';
import { loopOverhead } from './loop-overhead.js';
import { processSpawnBench, type SpawnPair } from './process-spawn.js';
import { mcpStartBench } from './mcp-start.js';
import { rateLimitsBench } from './rate-limits.js';
import { reviewAppBench } from './review-app.js';
import { reviewQueueBench, reviewQueueDepthBench } from './review-queue.js';
import { runsAppBench } from './runs-app.js';
import { scaleBench, scaleOptions } from './scale.js';
import { scaleReport } from './scale-report.js';
import { studyBench } from './study.js';
import { TRACING_MODES, tracingOverhead } from './tracing-overhead.js';
import { workersBench } from './workers.js';
import { workspaceBench, type Spread } from './workspace.js';

const args = process.argv.slice(2);
const quick = args.includes('--quick');
const [name, ...options] = args.filter((arg) => arg !== '--quick');
/** The bench to run, or undefined for all of them (no name, or `all`). */
const only = name === 'all' ? undefined : name;
const benches: Record<string, () => Promise<string>> = {
  'loop-overhead': async () => {
    const result = await loopOverhead(quick ? { attemptsPerRun: 50, rounds: 2, processes: 1, warmUpRuns: 2 } : {});
    return [
      `loop-overhead: ${result.attemptsPerRun} attempts per run, median of ${result.rounds} rounds, no-op proposer and check, in-memory state`,
      `  redline runMission (MemoryLedger)          ${result.redlineUsPerAttempt.toFixed(1).padStart(8)} µs/attempt`,
      `  LangGraph JS StateGraph (MemorySaver)      ${result.langgraphUsPerAttempt.toFixed(1).padStart(8)} µs/attempt`,
      `  ratio LangGraph / redline                  ${result.ratio.toFixed(1).padStart(8)}×  (target ≥ 20×)`,
    ].join('\n');
  },
  'tracing-overhead': async () => {
    const result = await tracingOverhead(quick ? { attemptsPerRun: 50, rounds: 2, processes: 1, warmUpRuns: 2 } : {});
    const base = result.usPerAttempt['not-installed'];
    return [
      `tracing-overhead: the loop-overhead loop, ${result.attemptsPerRun} attempts per run, median of ${result.rounds} rounds per mode`,
      ...TRACING_MODES.map((mode) => {
        const us = result.usPerAttempt[mode];
        return `  ${mode.padEnd(41)}${us.toFixed(1).padStart(8)} µs/attempt  (${us - base >= 0 ? '+' : ''}${(us - base).toFixed(1)} µs vs not-installed)`;
      }),
    ].join('\n');
  },
  ledger: async () => {
    const result = await ledgerBench(quick ? { rounds: 1, secondsPerRound: 0.05, warmUpRuns: 2 } : {});
    const rate = (perSecond: number): string => Math.round(perSecond).toLocaleString('en-US').padStart(8);
    const backend = (
      name: string,
      plain: string,
      { redlineAppendsPerSec, plainInsertsPerSec, ratio, verifyMBps, verifiedRecords }: BackendResult,
    ): string[] => [
      `  ${`redline ${name}.append`.padEnd(43)}${rate(redlineAppendsPerSec)} appends/s`,
      `  ${plain.padEnd(43)}${rate(plainInsertsPerSec)} inserts/s`,
      `  ${'ratio redline / plain'.padEnd(43)}${(ratio * 100).toFixed(0).padStart(8)}%  (target ≥ 50%)`,
      `  ${'verifyLedger (reads included)'.padEnd(43)}${verifyMBps.toFixed(1).padStart(8)} MB/s  (${verifiedRecords.toLocaleString('en-US')} records)`,
    ];
    return [
      `ledger: durable commits, one append per call, runs of ${result.recordsPerRun} records (run.started, ${result.recordsPerRun - 2} attempts of ${Math.round(result.attemptBytes)} B, run.sealed), median of ${result.rounds} rounds`,
      ...backend('SqliteLedger', 'better-sqlite3 INSERT (WAL, sync FULL)', result.sqlite),
      ...backend('PostgresLedger', 'pg INSERT (synchronous_commit on)', result.postgres),
    ].join('\n');
  },
  'review-queue': async () => {
    const result = await reviewQueueBench(quick ? { items: 40, warmupItems: 10, rounds: 1, reviewers: 2 } : {});
    const rate = (perSecond: number): string => Math.round(perSecond).toLocaleString('en-US').padStart(8);
    const phases = (enqueue: string, decide: string, { enqueues, decisions }: { enqueues: number; decisions: number }): string =>
      `  (${enqueue} ${Math.round(enqueues).toLocaleString('en-US')}/s, ${decide} ${Math.round(decisions).toLocaleString('en-US')}/s)`;
    return [
      `review-queue: PostgreSQL, 1 producer then ${result.reviewers} reviewers, each on its own connection, ${result.items.toLocaleString('en-US')} items of ${result.briefBytes} B per round, median of ${result.rounds} rounds`,
      `  ${'redline enqueue → claim → verdict'.padEnd(43)}${rate(result.redline.cycles)} cycles/s${phases('enqueue', 'claim+verdict', result.redline)}`,
      `  ${'pg-boss 10 send → fetch → complete'.padEnd(43)}${rate(result.pgBoss.cycles)} cycles/s${phases('send', 'fetch+complete', result.pgBoss)}`,
      `  ${'ratio redline / pg-boss'.padEnd(43)}${result.ratio.toFixed(2).padStart(8)}×  (target ≥ 1.0×)`,
    ].join('\n');
  },
};

benches['review-app'] = async () => {
  const result = await reviewAppBench(quick ? { items: 200, rounds: 3 } : {});
  const ms = ({ median, p95 }: { median: number; p95: number }): string => `${median.toFixed(1).padStart(8)} ms  (p95 ${p95.toFixed(1)})`;
  return [
    `review-app: the queue page over HTTP on loopback, SQLite ledger and queue with ${result.items.toLocaleString('en-US')} runs and items (filled in ${result.fillS.toFixed(1)} s), median of ${result.rounds} requests after 5 warm-up ones`,
    `  ${'first request (missions read from the ledger)'.padEnd(48)}${result.firstMs.toFixed(1).padStart(8)} ms`,
    `  ${'queue page, first 50 items'.padEnd(48)}${ms(result.pageMs)}  (target < 100 ms; ${Math.round(result.pageBytes / 1024)} KB)`,
    `  ${'queue page filtered by verification (whole queue)'.padEnd(48)}${ms(result.filteredMs)}`,
  ].join('\n');
};

benches['runs-app'] = async () => {
  // `npm run bench -- runs-app --quick`: 10,000 runs and 10 rounds instead of 100,000 and 30.
  const quick = only === 'runs-app' && process.argv.includes('--quick');
  const result = await runsAppBench(quick ? { runs: 10_000, rounds: 10 } : {});
  return [
    `runs-app: the runs and reports pages of \`redline serve\` over HTTP on loopback, SQLite ledger of ${result.runs.toLocaleString('en-US')} runs (filled in ${result.fillS.toFixed(1)} s), median of ${result.rounds} requests each after 3 warm-up rounds`,
    ...result.pages.map(
      ({ name, median, p95, rows }) =>
        `  ${name.padEnd(34)}${median.toFixed(1).padStart(8)} ms  (p95 ${p95.toFixed(1)}; ${rows} rows)${median < 100 ? '' : '  over the 100 ms target'}`,
    ),
    '  first view of each reports page (reads the tally; later views find it kept until another run is sealed):',
    ...result.firstViews.map(({ name, ms }) => `  ${name.padEnd(34)}${ms.toFixed(1).padStart(8)} ms`),
    '  target: every page < 100 ms',
  ].join('\n');
};

benches['review-depth'] = async () => {
  const result = await reviewQueueDepthBench(quick ? { checkpoints: [100, 300], drops: 200 } : {});
  const count = (value: number): string => Math.round(value).toLocaleString('en-US');
  const [first, ...rest] = result.points;
  return [
    `review-depth: SqliteReviewQueue (synchronous = normal), one awaited call each; fill to ${count(result.points.at(-1)?.depth ?? 0)} deep took ${result.fillS.toFixed(1)} s`,
    '  depth      enqueue µs   verdict µs   stats ms   review stats ms',
    ...result.points.map(
      (point) =>
        `  ${count(point.depth).padStart(7)}  ${point.enqueueUs.toFixed(0).padStart(11)}  ${point.verdictUs.toFixed(0).padStart(11)}  ${point.statsMs.toFixed(2).padStart(9)}  ${point.reviewStatsMs.toFixed(1).padStart(16)}`,
    ),
    ...rest.map(
      (point) =>
        `  per-call at ${count(point.depth)} / at ${count(first?.depth ?? 0)}: enqueue ${(point.enqueueUs / (first?.enqueueUs ?? 1)).toFixed(2)}×, verdict ${(point.verdictUs / (first?.verdictUs ?? 1)).toFixed(2)}×  (target ≤ 1.5×)`,
    ),
    `  verifyJournal at ${count(result.points.at(-1)?.depth ?? 0)} deep: ${count(result.verifyMs)} ms, heap +${result.verifyHeapMB.toFixed(1)} MB`,
    `  review stats after ${count(result.drops)} drops: ${result.droppedReviewStatsMs.toFixed(1)} ms (target < 50 ms), heap +${result.droppedReviewStatsHeapMB.toFixed(1)} MB`,
  ].join('\n');
};

benches.study = async () => {
  const result = await studyBench(quick ? { rounds: 1, seeds: 1, confidences: [0.9] } : {});
  return [
    `study: redline study stop-rules defaults (10 strategies × 5 σ × 10 seeds × 300 test tasks + cold-start curve), median of ${result.rounds} warm runs`,
    `  full default study                         ${result.coreMs.toFixed(0).padStart(8)} ms  (target < 500 ms, ratio ${(result.coreMs / 500).toFixed(2)}× the target)`,
    `  with the calibration sweep (CLI default)   ${result.withCalibrationMs.toFixed(0).padStart(8)} ms  (15 confidences × 2 noise modes, one run)`,
  ].join('\n');
};

// Options after the name reach the bench: `npm run bench -- scale --runs 5000,50000`.
benches.scale = async () =>
  scaleReport(await scaleBench(scaleOptions(only === 'scale' ? options : quick ? ['--runs', '20,40', '--backends', 'sqlite'] : [])));

benches.workspace = async () => {
  const result = await workspaceBench(
    quick
      ? {
          rounds: 1,
          attemptsPerRound: 2,
          splitAttemptsPerRound: 1,
          size: { sourceFiles: 2_000, sourceDirs: 200, sourceBytes: 10_000_000, moduleFiles: 300 },
        }
      : {},
  );
  const { tree, report, split } = result;
  const count = (value: number): string => Math.round(value).toLocaleString('en-US');
  const ms = ({ median, min, max }: Spread): string => `${count(median).padStart(8)} ms  (${count(min)}–${count(max)})`;
  const times = ({ median, min, max }: Spread, digits: number): string =>
    `${median.toFixed(digits).padStart(8)}×  (${min.toFixed(digits)}–${max.toFixed(digits)})`;
  const percent = ({ median, min, max }: Spread): string =>
    `${(median * 100).toFixed(1).padStart(8)}%  (${(min * 100).toFixed(1)}–${(max * 100).toFixed(1)})`;
  const git = 'skipped' in result.gitStatusMs ? `skipped: ${result.gitStatusMs.skipped}` : ms(result.gitStatusMs);
  return [
    `workspace: ${count(tree.sourceFiles)} source files (${(tree.sourceBytes / 1e6).toFixed(0)} MB, ${count(tree.sourceDirs)} dirs, depth ≤ ${tree.maxDepth}) + node_modules (${count(tree.moduleFiles)} files, ${count(tree.moduleDirs)} dirs, ${(tree.moduleBytes / 1e6).toFixed(0)} MB, ${tree.moduleLinks} .bin links); median (range) of ${result.rounds} interleaved rounds after a warm-up, ${result.attemptsPerRound} attempts and ${result.sandboxesPerRound} reference ${result.sandboxesPerRound === 1 ? 'copy' : 'copies'} per round; load average ${result.load.before.toFixed(1)} before, ${result.load.after.toFixed(1)} after`,
    `  (a) cp -r workspace                       ${ms(result.cpMs)}   then rm -rf:${ms(result.rmMs)}`,
    `  (b) RunWorkspace.start                    ${ms(result.startMs)}   dispose:    ${ms(result.disposeMs)}, removed in the background after ${count(result.removedMs.median)} ms (${count(result.removedMs.min)}–${count(result.removedMs.max)})`,
    `  (c) checkCopy after a check, per attempt  ${ms(result.resetMs)}   scanned ${count(report.scanned.median)} paths, hashed ${count(report.hashed.median)}, restored ${count(report.restored.median)}`,
    `  (d) reference createSandbox + dispose     ${ms(result.sandboxMs)}   create ${count(result.sandboxCreateMs.median)} ms, dispose ${count(result.sandboxDisposeMs.median)} ms`,
    `  ratio (b) / (a)                           ${times(result.startOverCp, 2)}  (target ≤ 1.5×)`,
    `  ratio (d) / (c)                           ${times(result.sandboxOverReset, 0)}  (target ≥ 20×)`,
    `  (c) / (a), for scale                     ${percent(result.resetOverCp)}  (the per-attempt target is (d)/(c))`,
    `  where (c) goes, on a copy of its own (${split.attemptsPerRound} attempts per round, ${count(split.paths)} expected paths; ${count(split.changed.median)} changed, ${count(split.extra.median)} created at the top):`,
    `    lstat of every expected path            ${ms(split.lstatMs)}`,
    `    WorkCopy.scan (lstats, stamps, hashing) ${ms(split.scanMs)}`,
    `    WorkCopy.reset (its scan + writes)      ${ms(split.resetMs)}`,
    `  git status --porcelain, same tree committed ${git}`,
    `  outside the rounds: generating the tree ${result.setupSeconds.generate.toFixed(0)} s, the git repository ${result.setupSeconds.git.toFixed(0)} s, the split's copy ${result.setupSeconds.splitCopy.toFixed(0)} s; the whole bench ${result.setupSeconds.total.toFixed(0)} s`,
  ].join('\n');
};

benches.workers = async () => {
  const result = await workersBench(quick ? { missions: 3, fleets: [1] } : {});
  const rate = (perSecond: number): string => perSecond.toFixed(1).padStart(8);
  return [
    `workers: ${result.missions} one-attempt missions (command proposer and check), PostgreSQL ledger; load average ${result.load.toFixed(1)} after`,
    `  ${'one process, redline run --concurrency 1'.padEnd(43)}${rate(result.oneProcess)} missions/s`,
    ...result.fleets.map(
      ({ workers, perSecond }) =>
        `  ${`${workers} worker process${workers === 1 ? '' : 'es'}, concurrency 1 each`.padEnd(43)}${rate(perSecond)} missions/s`,
    ),
    `  ${'queue overhead per mission (1 worker − one process)'.padEnd(43)}${result.overheadMs.toFixed(0).padStart(8)} ms`,
  ].join('\n');
};

benches['mcp-start'] = async () => {
  const result = await mcpStartBench(quick ? { rounds: 1 } : {});
  const ms = (value: number): string => `${value.toFixed(0).padStart(8)} ms`;
  return [
    `mcp-start: fresh processes from spawn, median of ${result.rounds} rounds taking turns; load average ${result.load.toFixed(1)} after`,
    `  ${'bare node -e, answering one line'.padEnd(43)}${ms(result.bareMs)}`,
    `  ${'redline mcp, answer to initialize'.padEnd(43)}${ms(result.initializeMs)}`,
    `  ${'redline mcp, answer to tools/list'.padEnd(43)}${ms(result.toolsMs)}`,
    `  ${'redline mcp, serving (session open)'.padEnd(43)}${ms(result.servingMs)}`,
    `  ${'ratio initialize / bare node'.padEnd(43)}${result.ratio.toFixed(2).padStart(8)}×  (target: initialize well under 1 s)`,
  ].join('\n');
};

benches['rate-limits'] = async () => {
  const result = await rateLimitsBench(quick ? { calls: 160 } : {});
  const rate = (perSecond: number): string => Math.round(perSecond).toLocaleString('en-US').padStart(8);
  return [
    `rate-limits: ${result.calls.toLocaleString('en-US')} model calls (take + settle) from ${result.clients} connections in 4 processes' pools, PostgreSQL; load average ${result.load.toFixed(1)} after`,
    `  ${'through one shared limit (one hot row)'.padEnd(43)}${rate(result.limited)} calls/s`,
    `  ${'to an endpoint without a limit'.padEnd(43)}${rate(result.unlimited)} calls/s`,
    `  ${'ratio limited / unlimited'.padEnd(43)}${(result.limited / result.unlimited).toFixed(2).padStart(8)}×`,
  ].join('\n');
};

benches['process-spawn'] = async () => {
  // `npm run bench -- process-spawn --calls 300` for steadier medians.
  const calls = only === 'process-spawn' && options[0] === '--calls' ? Number(options[1]) : quick ? 2 : undefined;
  const result = await processSpawnBench(calls === undefined ? {} : { calls, ...(quick ? { warmup: 1 } : {}) });
  const ms = (value: number): string => `${value.toFixed(2).padStart(8)} ms`;
  const pair = (label: string, { plainMs, namespacedMs }: SpawnPair): string[] => [
    `  ${`runProcess ${label}, no namespace`.padEnd(43)}${ms(plainMs)}`,
    `  ${`runProcess ${label}, PID namespace`.padEnd(43)}${ms(namespacedMs)}  (+${(namespacedMs - plainMs).toFixed(2)} ms, ratio ${(namespacedMs / plainMs).toFixed(2)}×)`,
  ];
  return [
    `process-spawn: per call, median of ${result.calls} calls each, taking turns; PID namespace via ${result.via}; load average ${result.load.toFixed(1)} after`,
    ...(result.trueCommand === undefined ? [] : pair("['true']", result.trueCommand)),
    ...(result.shellCommand === undefined ? [] : pair('of a shell line', result.shellCommand)),
    ...Object.entries(result.bare).map(
      ([tool, value]) =>
        `  ${(tool === 'plain' ? 'bare spawn of true' : `bare spawn of true through ${tool}`).padEnd(43)}${ms(value)}  (ratio ${(value / (result.bare.plain as number)).toFixed(2)}×)`,
    ),
    ...result.unavailable.map((why) => `  not measured: ${why}`),
  ].join('\n');
};

benches['cli-start'] = async () => {
  const result = await cliStartBench(quick ? { rounds: 2 } : {});
  const ms = (value: number): string => `${value.toFixed(0).padStart(8)} ms`;
  return [
    `cli-start: the built CLI from spawn to exit, median of ${result.rounds} rounds taking turns after a warm-up; load average ${result.load.toFixed(1)} after`,
    `  ${"bare node -e ''".padEnd(43)}${ms(result.bareMs)}`,
    `  ${'redline --version'.padEnd(43)}${ms(result.versionMs)}  (target ≤ 150 ms; ${(result.versionMs / result.bareMs).toFixed(2)}× bare node)`,
    `  ${'redline --help'.padEnd(43)}${ms(result.helpMs)}  (target ≤ 150 ms; ${(result.helpMs / result.bareMs).toFixed(2)}× bare node)`,
  ].join('\n');
};

benches['real-overhead'] = async () => {
  const result = await realOverheadBench({ quick });
  const { qs } = result.setupSeconds;
  const s = (ms: number): string => `${(ms / 1000).toFixed(2).padStart(7)} s`;
  const target = (subject: string): string => (subject.startsWith('qs') ? 'target ≤ 0.5 s' : 'target ≤ 1 s');
  const label = (run: number): string => (run === 1 ? 'first ' : `run ${run} `);
  const median = (values: readonly number[]): number => {
    const sorted = [...values].sort((a, b) => a - b);
    return sorted[Math.floor((sorted.length - 1) / 2)] as number;
  };
  const later = [...new Set(result.rows.map((row) => row.subject))].flatMap((subject) => {
    const rows = result.rows.filter((row) => row.subject === subject && row.run > 1);
    if (rows.length === 0) return [];
    const span = (values: number[]): string =>
      `${s(median(values))} (${(Math.min(...values) / 1000).toFixed(2)}–${(Math.max(...values) / 1000).toFixed(2)})`;
    return [
      `  ${subject.padEnd(26)}runs 2–${rows.length + 1}: overhead ${span(rows.map((row) => row.overheadMs))}, own time ${span(rows.map((row) => row.ownMs))}  (${target(subject)})`,
    ];
  });
  return [
    `real-overhead: redline run (built CLI, start to exit, temp SQLite ledger; agent proposer fixing a seeded bug at attempt 2) against the same proposer and test commands by hand (test, propose 1, test, propose 2, test); load average ${result.load.before.toFixed(1)} before, ${result.load.after.toFixed(1)} after`,
    "  own time: redline's wall time less its checks' and proposer's recorded durations",
    '  repository                    files   run    redline    by hand   overhead    ratio   own time   redline per attempt (target ≤ 0.2 s)',
    ...result.rows.map(
      (row) =>
        `  ${row.subject.padEnd(26)}${row.files.toLocaleString('en-US').padStart(8)}   ${label(row.run).padEnd(7)}${s(row.redlineMs)}  ${s(row.byHandMs)}  ${s(row.overheadMs)}  ${row.ratio.toFixed(2).padStart(6)}×  ${s(row.ownMs)}   ${row.perAttemptMs.map((ms) => `${(ms / 1000).toFixed(2)} s`).join(', ')}`,
    ),
    ...(later.length === 0 ? [] : ['  second and later runs on the same repository, median (min–max):', ...later]),
    "  from the run's records: spawn → run.started record (start), run.sealed record → exit",
    ...result.rows.map(
      ({ subject, run, phasesMs }) =>
        `  ${subject.padEnd(26)}${label(run).padEnd(7)} start ${s(phasesMs.start)}   exit ${s(phasesMs.exit)}`,
    ),
    '  the first run against `cp -r` of the repository (same file system, right before and right after it): redline − by hand, over the copy (target ≤ 1.5×);',
    "  and what the first run's copies cost: its own time less the later runs' median own time, over the copy",
    ...result.rows
      .filter((row) => row.run === 1)
      .map(({ subject, overheadMs, ownMs, copiesMs }) => {
        const copyMs = copiesMs.reduce((sum, value) => sum + value, 0) / copiesMs.length;
        const laterOwn = result.rows.filter((row) => row.subject === subject && row.run > 1).map((row) => row.ownMs);
        const copies =
          laterOwn.length === 0 ? '' : `   copies ${s(ownMs - median(laterOwn))}   ${((ownMs - median(laterOwn)) / copyMs).toFixed(2)}×`;
        return `  ${subject.padEnd(26)}cp -r ${copiesMs.map((value) => s(value)).join(',')}   first-run overhead ${s(overheadMs)}   ${(overheadMs / copyMs).toFixed(2)}×${copies}`;
      }),
    ...result.skipped.map((why) => `  skipped: ${why}`),
    `  outside the timing: ${qs === undefined ? '' : qs < 1 ? 'qs from the cache, ' : `qs installed in ${qs.toFixed(0)} s, `}the tree generated in ${result.setupSeconds.tree.toFixed(0)} s`,
  ].join('\n');
};

if (only !== undefined && !(only in benches)) throw new Error(`no bench named ${only}; the benches: ${Object.keys(benches).join(', ')}`);
for (const [benchName, bench] of Object.entries(benches)) {
  if (only !== undefined && only !== benchName) continue;
  const started = performance.now();
  const report = await bench();
  console.log(
    quick
      ? `${report}\n  (quick mode: small sizes, the figures only show the bench runs; ${((performance.now() - started) / 1000).toFixed(1)} s)`
      : report,
  );
}
