import type { Context, Hono } from 'hono';
import { streamSSE } from 'hono/streaming';
import type { PublicKeyEntry } from '../core/signature.js';
import { ledgerRunOf } from '../judge/request-key.js';
import { parseRecord } from '../ledger/chain.js';
import type { Ledger, RunPageQuery, RunRow, StoredRecord } from '../ledger/ledger.js';
import { checkSeal } from '../ledger/seal-signature.js';
import { verifyRun } from '../ledger/verify.js';
import type { ReviewerQueue } from '../review/reviewer-queue.js';
import { changeOf, type BaselineFile } from './file-change.js';
import { html, visibleText, type Html } from './html.js';
import { ledgerFilterOf, runsFilterOf } from './run-filter.js';
import { runPage } from './run-page.js';
import { pageKeyOf, RUNS_PAGE_SIZE, runsPage, type RunFigures } from './runs-page.js';
import type { Session } from './sessions.js';

type Env = { Variables: { session: Session } };
type Render = (c: Context<Env>, title: string, body: Html, status?: number) => Promise<Response>;

/** How often a live page's event stream says it is still there when nothing happens. */
const HEARTBEAT_MS = 15_000;

/** The figures the runs page shows of each run, from its newest record (the seal's counters once sealed). */
function figuresOf(runs: readonly RunRow[], last: readonly StoredRecord[]): Map<string, RunFigures> {
  const started = new Map(runs.map((run) => [run.runId, run.startedAt]));
  const figures = new Map<string, RunFigures>();
  for (const stored of last) {
    let data: Record<string, unknown>;
    let at: number;
    try {
      const record = JSON.parse(stored.body) as { at?: unknown; data?: unknown };
      data = typeof record.data === 'object' && record.data !== null ? (record.data as Record<string, unknown>) : {};
      at = typeof record.at === 'number' ? record.at : Number.NaN;
    } catch {
      continue;
    }
    const state = data.state as { counters?: unknown } | undefined;
    const counters = (data.counters ?? state?.counters) as { attempts?: unknown; costUsd?: unknown; elapsedMs?: unknown } | undefined;
    const number = (value: unknown): number | undefined => (typeof value === 'number' && Number.isFinite(value) ? value : undefined);
    const since = started.get(stored.runId);
    const attempts = number(data.attempts) ?? number(counters?.attempts);
    const costUsd = number(counters?.costUsd);
    const durationMs = number(counters?.elapsedMs) ?? (since === undefined || Number.isNaN(at) ? undefined : at - since);
    figures.set(stored.runId, {
      ...(attempts === undefined ? {} : { attempts }),
      ...(costUsd === undefined ? {} : { costUsd }),
      ...(durationMs === undefined ? {} : { durationMs }),
    });
  }
  return figures;
}

/** One page of runs, newest first: the ledger's indexed page where it has one, else its whole list filtered. */
async function pageOf(ledger: Ledger, query: RunPageQuery): Promise<readonly RunRow[]> {
  if (ledger.runPage !== undefined) return ledger.runPage(query);
  const { before } = query;
  const all = (await ledger.runs(query.filter)).filter(
    (run) => before === undefined || run.startedAt < before.startedAt || (run.startedAt === before.startedAt && run.runId < before.runId),
  );
  return all.reverse().slice(0, query.limit);
}

/**
 * The runs pages (docs/runs-app.md): every run of the ledger newest first (`GET /runs`), one run
 * (`GET /runs/:runId`), the whole diff of one file of an attempt as plain text, and a running run's
 * server-sent events (`GET /runs/:runId/events`), which poll the ledger's head every `pollMs`.
 */
export function runsRoutes(
  app: Hono<Env>,
  {
    ledger,
    queue,
    render,
    publicKeys,
    pollMs,
    now,
  }: {
    ledger: Ledger | undefined;
    queue: ReviewerQueue;
    render: Render;
    publicKeys: readonly PublicKeyEntry[];
    pollMs: number;
    now: () => number;
  },
): void {
  const noLedger = (c: Context<Env>): Promise<Response> =>
    render(
      c,
      'Runs',
      html`<h1>Runs</h1>
        <p class="notice">No ledger is open.</p>`,
      404,
    );
  const noSuchRun = (c: Context<Env>, runId: string): Promise<Response> =>
    render(
      c,
      'Not found',
      html`<h1>No such run</h1>
        <p class="notice">The ledger holds no run <code>${runId}</code>.</p>
        <p><a href="/runs">Back to the runs</a></p>`,
      404,
    );

  app.get('/runs', async (c) => {
    if (ledger === undefined) return noLedger(c);
    const filter = runsFilterOf((name) => c.req.query(name));
    const ledgerFilter = ledgerFilterOf(filter);
    const before = pageKeyOf(c.req.query('before'));
    // One more than a page: whether there is an older page, without counting.
    const found = await pageOf(ledger, { filter: ledgerFilter, limit: RUNS_PAGE_SIZE + 1, ...(before === undefined ? {} : { before }) });
    const runs = found.slice(0, RUNS_PAGE_SIZE);
    const last = ledger.lastRecords === undefined ? [] : await ledger.lastRecords(runs.map((run) => run.runId));
    const body = runsPage({
      runs,
      figures: figuresOf(runs, last),
      filter,
      hasMore: found.length > RUNS_PAGE_SIZE,
      paged: before !== undefined,
      at: now(),
    });
    return render(c, 'Runs', body);
  });

  app.get('/runs/:runId', async (c) => {
    if (ledger === undefined) return noLedger(c);
    const runId = c.req.param('runId');
    const stored = ledger.storedRun === undefined ? undefined : await ledger.storedRun(runId);
    const [run] = stored === undefined ? await ledger.runs({ runId }) : [stored.run];
    if (run === undefined) return noSuchRun(c, runId);
    const rows = stored?.records ?? (await ledger.stored(runId));
    const records = rows.map(parseRecord);
    const [resolvedBy, items] = await Promise.all([ledger.runs({ resolves: runId }), queue.list()]);
    const reviewItem = items.find(({ item }) => ledgerRunOf(item.runId) === runId)?.item.id;
    const body = runPage({
      run,
      records,
      verification: verifyRun(run, rows),
      signature: checkSeal(rows, publicKeys),
      links: { resolvedBy, ...(reviewItem === undefined ? {} : { reviewItem }) },
      at: now(),
    });
    return render(c, `Run ${runId}`, body);
  });

  // One file of one attempt against the file before the run, whole, as plain text (hidden characters spelled out).
  app.get('/runs/:runId/diff', async (c) => {
    const attempt = Number(c.req.query('attempt'));
    const file = c.req.query('file') ?? '';
    const records = ledger === undefined ? [] : await ledger.records(c.req.param('runId'));
    const candidate = records.find((record) => record.type === 'attempt' && record.data.attempt === attempt);
    const seal = records.find((record) => record.type === 'run.sealed');
    const files = candidate?.type === 'attempt' ? candidate.data.candidate?.files : undefined;
    const baseline = seal?.type === 'run.sealed' ? seal.data.brief?.finalOutput.baseline : undefined;
    if (files === undefined || !Object.hasOwn(files, file)) return c.text('No such file', 404);
    const after = files[file] ?? null;
    const change =
      baseline !== undefined && Object.hasOwn(baseline, file) ? changeOf(file, baseline[file] as BaselineFile, after) : undefined;
    const text = change?.kind === 'diff' ? change.diff : (after ?? '');
    return c.body(visibleText(text), 200, { 'Content-Type': 'text/plain; charset=utf-8', 'Content-Disposition': 'inline' });
  });

  // A `records` event each time the run's record count grows past what the page showed (`count`); the
  // stream ends after the seal. Polls the ledger's head: one indexed read per `pollMs` per open page.
  app.get('/runs/:runId/events', async (c) => {
    if (ledger === undefined) return c.text('No ledger is open', 404);
    const runId = c.req.param('runId');
    const [run] = await ledger.runs({ runId });
    if (run === undefined) return c.text('No such run', 404);
    let shown = Math.max(0, Number.parseInt(c.req.query('count') ?? '0', 10) || 0);
    return streamSSE(c, async (stream) => {
      let open = true;
      stream.onAbort(() => {
        open = false;
      });
      let quiet = 0;
      while (open) {
        const head = await ledger.head(runId);
        if (head.count !== shown || head.sealed) {
          shown = head.count;
          await stream.writeSSE({ event: 'records', data: JSON.stringify({ count: head.count, sealed: head.sealed }) });
          quiet = 0;
          if (head.sealed) break;
        } else if ((quiet += pollMs) >= HEARTBEAT_MS) {
          await stream.write(': still running\n\n');
          quiet = 0;
        }
        await stream.sleep(pollMs);
      }
    });
  });
}
