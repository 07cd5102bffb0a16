import type { Context, Hono } from 'hono';
import { runTrends } from '../analysis/run-trends.js';
import { reachReport } from '../analysis/stop-quality.js';
import type { Ledger } from '../ledger/ledger.js';
import { ledgerTally } from '../ledger/run-tally.js';
import { html, type Html } from './html.js';
import { reportsPage } from './reports-page.js';
import { ledgerFilterOf, runsFilterOf } from './run-filter.js';
import type { Session } from './sessions.js';

type Env = { Variables: { session: Session } };
type Render = (c: Context<Env>, title: string, body: Html, status?: number) => Promise<Response>;

/**
 * The reports page (`GET /reports`, docs/runs-app.md): one tally of the ledger's sealed runs (aggregates
 * the store computes) read into outcomes, stop reasons and spend over time and the stop-quality report.
 */
export function reportsRoutes(app: Hono<Env>, { ledger, render }: { ledger: Ledger | undefined; render: Render }): void {
  app.get('/reports', async (c) => {
    if (ledger === undefined)
      return render(
        c,
        'Reports',
        html`<h1>Reports</h1>
          <p class="notice">No ledger is open.</p>`,
        404,
      );
    // The reports break runs down by outcome: an outcome in the query is no filter here.
    const { outcome: _outcome, ...filter } = runsFilterOf((name) => c.req.query(name));
    const tally = await ledgerTally(ledger, ledgerFilterOf(filter));
    return render(c, 'Reports', reportsPage({ filter, trends: runTrends(tally.groups), stopQuality: reachReport(tally) }));
  });
}
