// The runs and reports pages of `redline serve` at scale: a SQLite ledger of 100,000 runs (10,000 with --quick)
// served by `serveReviewApp` on loopback; a signed-in client asks for pages of runs over HTTP (keep-alive),
// unfiltered, filtered each way the page filters, and deep (older pages by keyset), and for the reports page
// (whole ledger and filtered), and the time to the last byte is measured. A benchmark, not a test.
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { SqliteLedger } from '../src/ledger/sqlite/sqlite-ledger.js';
import { SqliteReviewQueue } from '../src/review/sqlite/sqlite-review-queue.js';
import { serveReviewApp } from '../src/review-app/serve-review-app.js';
import { generateToken } from '../src/review-app/tokens.js';
import { signIn, spread } from './signed-in-client.js';

export interface RunsAppBenchResult {
  readonly runs: number;
  readonly rounds: number;
  readonly fillS: number;
  /** Median and p95 ms per page, by what the page asked. */
  readonly pages: readonly { readonly name: string; readonly median: number; readonly p95: number; readonly rows: number }[];
  /** Each reports page's first view, which reads the ledger's tally (the timed ones find it kept). */
  readonly firstViews: readonly { readonly name: string; readonly ms: number }[];
}

const DAY = 86_400_000;
const T0 = Date.parse('2026-01-01T00:00:00Z');
const OUTCOMES = ['complete', 'complete', 'complete', 'failed_with_evidence', 'complete_noop', 'blocked'] as const;
const STOP_REASONS = ['demand_passed', 'threshold', 'confirm', 'budget_attempts', 'no_progress', 'approval_missing', 'thrashing'] as const;

const counters = (attempts: number) => ({
  attempts,
  inputTokens: 1_000 * attempts,
  outputTokens: 250 * attempts,
  costUsd: 0.01 * attempts,
  elapsedMs: 30_000 * attempts,
  sinceProgress: 0,
  failedRounds: 0,
});

/** Fills `ledger` with `runs` runs over 300 days: 100 missions, 3 task types; 1 in 50 still running. */
async function fill(ledger: SqliteLedger, runs: number): Promise<void> {
  for (let index = 0; index < runs; index += 1) {
    const runId = `run-${String(index).padStart(7, '0')}`;
    const at = T0 + Math.floor((index / runs) * 300 * DAY);
    const attempts = 1 + (index % 5);
    const mission = { id: `mission-${index % 100}`, taskType: ['fix-ci', 'migrate', 'extract'][index % 3] };
    const guards = ['attemptsBudget()', index % 2 === 0 ? 'threshold(0.8)' : 'confirm(2, 0.8)'];
    await ledger.append({ runId, seq: 0, type: 'run.started', at, data: { mission, guards } });
    // One candidate in 10 is one seen before (its hash repeats), so the judge's noise has scores to pool.
    const candidateHash = `c${index % 10 === 0 ? index % 1_000 : index}`;
    const summary = {
      attempt: attempts,
      candidateHash,
      signature: 's',
      rejection: '',
      score: 0.5 + (index % 7) / 20,
      failing: 0,
      failed: false,
      infraError: false,
      progress: true,
    };
    await ledger.append({
      runId,
      seq: 1,
      type: 'attempt',
      at: at + 1_000,
      data: { attempt: attempts, summary, counters: counters(attempts) },
    });
    if (index % 50 === 49) continue;
    const outcome = OUTCOMES[index % OUTCOMES.length] as string;
    await ledger.append({
      runId,
      seq: 2,
      type: 'run.sealed',
      at: at + 2_000,
      data: {
        outcome,
        verification: 'verified',
        stopReason: STOP_REASONS[index % STOP_REASONS.length] as string,
        attempts,
        counters: counters(attempts),
        shadow: { verdict: index % 4 === 0 ? 'fail' : 'pass', findings: [] },
      },
    });
  }
}

/** Measures the runs page with `runs` runs in the ledger, `rounds` requests of each kind. */
export async function runsAppBench({ runs = 100_000, rounds = 30 }: { runs?: number; rounds?: number } = {}): Promise<RunsAppBenchResult> {
  const dir = await mkdtemp(path.join(os.tmpdir(), `redline-bench-runs-app-${process.pid}-`));
  const file = path.join(dir, 'redline.db');
  const ledger = await SqliteLedger.open({ database: file, synchronous: 'off' });
  const queue = await SqliteReviewQueue.open({ database: file, synchronous: 'off' });
  try {
    const fillStart = performance.now();
    await fill(ledger, runs);
    const fillS = (performance.now() - fillStart) / 1000;
    const startToken = generateToken();
    const server = await serveReviewApp({ queue, ledger, startToken });
    try {
      const { get } = await signIn(server, startToken);
      const rowsOf = (body: string): number => body.split('<tr data-nav-row').length - 1;
      // A page 100 pages deep: its `before` key, found by walking the older links once.
      let deep = '/runs';
      for (let page = 0; page < 100; page += 1) {
        const older = /<a href="([^"]+)" id="older">/.exec((await get(deep)).body)?.[1];
        if (older === undefined) break;
        deep = older.replaceAll('&amp;', '&');
      }
      const routes: [string, string][] = [
        ['newest page', '/runs'],
        ['100 pages deep', deep],
        ['by mission', '/runs?missionId=mission-7'],
        ['by outcome (1 in 6: blocked)', '/runs?outcome=blocked'],
        ['by task type', '/runs?taskType=migrate'],
        ['by start day (a week)', '/runs?from=2026-03-01&to=2026-03-07'],
        ['mission + outcome + week', '/runs?missionId=mission-7&outcome=complete&from=2026-03-01&to=2026-03-31'],
        ['a mission with no runs', '/runs?missionId=nobody'],
        ['one run', '/runs/run-0000100'],
        ['reports (300 days by week)', '/reports'],
        ['reports by task type', '/reports?taskType=migrate'],
        ['reports of a mission', '/reports?missionId=mission-7'],
        ['reports of a month (by day)', '/reports?from=2026-03-01&to=2026-03-31'],
      ];
      // A reports page's first view reads the tally; later ones find it kept while no run is sealed.
      const firstViews: { name: string; ms: number }[] = [];
      for (const [name, route] of routes) if (route.startsWith('/reports')) firstViews.push({ name, ms: (await get(route)).ms });
      for (let warm = 0; warm < 3; warm += 1) for (const [, route] of routes) await get(route);
      const samples = new Map<string, number[]>(routes.map(([name]) => [name, []]));
      const rows = new Map<string, number>();
      for (let round = 0; round < rounds; round += 1)
        for (const [name, route] of routes) {
          const { ms, body } = await get(route);
          samples.get(name)?.push(ms);
          rows.set(name, rowsOf(body));
        }
      return {
        runs,
        rounds,
        fillS,
        pages: routes.map(([name]) => ({ name, ...spread(samples.get(name) ?? []), rows: rows.get(name) ?? 0 })),
        firstViews,
      };
    } finally {
      await server.close();
    }
  } finally {
    await queue.close();
    await ledger.close();
    await rm(dir, { recursive: true, force: true });
  }
}
