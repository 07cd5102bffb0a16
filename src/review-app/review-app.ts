import { randomBytes } from 'node:crypto';
import { Hono, type Context } from 'hono';
import { deleteCookie, getCookie, setCookie } from 'hono/cookie';
import type { PublicKeyEntry } from '../core/signature.js';
import { ledgerRunOf } from '../judge/request-key.js';
import type { Ledger } from '../ledger/ledger.js';
import { verifyRun } from '../ledger/verify.js';
import { ReviewError } from '../review/review-error.js';
import type { QueueAdmin } from '../review/queue-admin.js';
import type { ReviewerQueue } from '../review/reviewer-queue.js';
import type { ReviewEntry } from '../review/types.js';
import { KEYS_SCRIPT, STYLESHEET } from './assets.js';
import { briefPage } from './brief-page.js';
import { fileChange } from './file-change.js';
import { valueText } from './final-output.js';
import { evidencePage } from './evidence-page.js';
import { filterRoutes } from './filter-routes.js';
import { reportsRoutes } from './reports-routes.js';
import { runsRoutes } from './runs-routes.js';
import { html, visibleText, type Html } from './html.js';
import { page, statusBar } from './layout.js';
import { PAGE_SIZE, queuePage, type QueueFilter, type RunInfo } from './queue-page.js';
import { SESSION_COOKIE, Sessions, type Session } from './sessions.js';
import { fieldOverCap, limitBodies } from './request-limits.js';
import { SIGN_IN_COOKIE, signInPage } from './sign-in-page.js';
import { hashToken, sameSecret } from './tokens.js';

/** What the reviewer web app serves from. */
export interface ReviewAppOptions {
  /** The queue's reviewer view (the pages, claims and verdicts) and its admin view (sign-in, filter rules). */
  readonly queue: ReviewerQueue & QueueAdmin;
  /** The ledger the queue's runs are in: the evidence page and each item's mission read it. */
  readonly ledger?: Ledger;
  /** A token that signs in as `startReviewer` for this server's life (printed at start), besides the queue's reviewers. */
  readonly startToken?: string;
  /** @default 'reviewer' */
  readonly startReviewer?: string;
  /**
   * The start token signs in once: after its first sign-in it signs no one in. @default false
   * (`redline review serve` sets it for the token it generates and prints).
   */
  readonly startTokenOnce?: boolean;
  /** How long after the app starts the start token signs in. @default no end */
  readonly startTokenTtlMs?: number;
  /**
   * The host names (without port) a request's `Host` may name; any other is answered 421, so a page on
   * a name rebound to this address (DNS rebinding) reaches nothing. @default any host
   */
  readonly hostNames?: readonly string[];
  /**
   * Live claims one reviewer may hold at once: `n` with that many held opens the one held instead of
   * claiming another. @default 1
   */
  readonly claimsPerReviewer?: number;
  /** How long a claim taken in the app holds. @default 900_000 (15 minutes) */
  readonly leaseMs?: number;
  /**
   * Asked before every request but the assets: a reason the queue's storage must not be used any more
   * (its file was deleted or replaced), or undefined. With a reason, the app answers 503 and says it.
   */
  readonly storageProblem?: () => Promise<string | undefined>;
  /** The keys a run's seal signature is checked against on the run page. @default none (a signed seal shows as signed by an unknown key) */
  readonly publicKeys?: readonly PublicKeyEntry[];
  /** Where a sign-in lands: the queue, or the runs (`redline serve`). @default '/' */
  readonly home?: '/' | '/runs';
  /** How often a running run's open page asks the ledger for new records. @default 1_000 */
  readonly livePollMs?: number;
  readonly _internal?: { readonly now?: () => number };
}

/**
 * Every response's security headers: scripts and styles from this origin only (no inline script can
 * run, whatever a run's output holds), connections (a running run's event stream) to it only, no framing, no sniffing, no referrer beyond this origin (which keeps its `Origin` on POSTs), no caching of briefs.
 */
export const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'Content-Security-Policy':
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
  'X-Content-Type-Options': 'nosniff',
  'X-Frame-Options': 'DENY',
  'Referrer-Policy': 'same-origin',
  'Cache-Control': 'no-store',
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Resource-Policy': 'same-origin',
};

type Env = { Variables: { session: Session } };

/**
 * The reviewer web app (docs/review-app.md) as a Hono application: the queue, one brief with the verdict form and
 * keyboard shortcuts, the run's evidence, and a status bar. Server-rendered; every value from a run goes
 * through `html` (escaped). A reviewer signs in with a token once and then holds an HttpOnly,
 * SameSite=Strict session cookie; every POST carries the session's CSRF token and a same-origin `Origin`.
 */
export function reviewApp({
  queue,
  ledger,
  startToken,
  startReviewer = 'reviewer',
  startTokenOnce = false,
  startTokenTtlMs,
  hostNames,
  claimsPerReviewer = 1,
  leaseMs = 15 * 60_000,
  storageProblem,
  publicKeys = [],
  home = '/',
  livePollMs = 1_000,
  _internal,
}: ReviewAppOptions): Hono<Env> {
  if (startToken !== undefined && (typeof startToken !== 'string' || startToken.length < 16))
    throw new TypeError(`Expected the start token to have at least 16 characters, got ${JSON.stringify(startToken?.length)}`);
  if (!Number.isInteger(claimsPerReviewer) || claimsPerReviewer < 1)
    throw new TypeError(`Expected claimsPerReviewer to be a positive integer, got ${claimsPerReviewer}`);
  if (!Number.isInteger(livePollMs) || livePollMs < 1)
    throw new TypeError(`Expected livePollMs to be a positive integer, got ${livePollMs}`);
  const now = _internal?.now ?? Date.now;
  const sessions = new Sessions({ now });
  let startHash = startToken === undefined ? undefined : hashToken(startToken);
  const startEnds = startTokenTtlMs === undefined ? Number.POSITIVE_INFINITY : now() + startTokenTtlMs;
  const hosts = hostNames === undefined ? undefined : new Set(hostNames.map((name) => name.toLowerCase()));
  const runInfo = new Map<string, RunInfo | null>();
  const app = new Hono<Env>();

  app.use(async (c, next) => {
    await next();
    for (const [name, value] of Object.entries(SECURITY_HEADERS)) c.header(name, value);
  });
  // Only the names the server was started for: a page on another name that resolves here gets nothing.
  app.use(async (c, next) => {
    if (hosts !== undefined && !hosts.has(hostNameOf(c.req.header('Host') ?? '')))
      return c.text('This server does not answer for that host name.', 421);
    await next();
  });
  // Every body is capped before it is read: a small cap until the sender is signed in.
  app.use(limitBodies((c) => sessions.get(getCookie(c, SESSION_COOKIE)) !== undefined));
  app.get('/assets/app.css', (c) => c.body(STYLESHEET, 200, { 'Content-Type': 'text/css; charset=utf-8' }));
  app.get('/assets/keys.js', (c) => c.body(KEYS_SCRIPT, 200, { 'Content-Type': 'text/javascript; charset=utf-8' }));
  // Storage that is no longer the one at its path takes no verdict and shows no stale queue.
  app.use(async (c, next) => {
    const problem = await storageProblem?.();
    if (problem === undefined) return next();
    return c.html(
      page({
        title: 'Unavailable',
        body: html`<h1>The review queue is unavailable</h1>
          <p class="error">This server takes no more verdicts: ${problem}. Restart it on the ledger to go on.</p>`,
      }),
      503,
    );
  });

  /** The reviewer a token names: the start token's (while it lasts), or one stored (hashed) with the queue. */
  const reviewerOf = async (token: string): Promise<{ reviewer: string; start: boolean } | undefined> => {
    if (token.length === 0 || token.length > 256) return undefined;
    const hash = hashToken(token);
    if (startHash !== undefined && sameSecret(hash, startHash) && now() < startEnds) return { reviewer: startReviewer, start: true };
    const reviewer = await queue.reviewerByToken(hash);
    return reviewer === undefined ? undefined : { reviewer, start: false };
  };
  /**
   * The sign-in page, with a nonce in a cookie its form must send back: the browser's own if it has one
   * (every page it loads meanwhile, a favicon too, answers with this page), else a new one.
   */
  const signInForm = (
    c: Context,
    status: number,
    options: { problem?: string; confirm?: { token: string; reviewer: string } } = {},
  ): Response => {
    const held = getCookie(c, SIGN_IN_COOKIE);
    const nonce = held !== undefined && /^[\w-]{32}$/.test(held) ? held : randomBytes(24).toString('base64url');
    setCookie(c, SIGN_IN_COOKIE, nonce, { httpOnly: true, sameSite: 'Strict', path: '/' });
    return c.html(signInPage({ nonce, ...options }), status as 200);
  };
  const signIn = async (c: Context<Env>, token: string): Promise<Response> => {
    const found = await reviewerOf(token);
    if (found === undefined) return signInForm(c, 401, { problem: 'That token signs no reviewer in.' });
    if (found.start && startTokenOnce) startHash = undefined;
    const session = sessions.start(found.reviewer);
    deleteCookie(c, SIGN_IN_COOKIE, { path: '/' });
    setCookie(c, SESSION_COOKIE, session.id, { httpOnly: true, sameSite: 'Strict', path: '/' });
    return c.redirect(home, 303);
  };
  // A link's token signs nothing in by itself: the page asks, and the reviewer's press POSTs it.
  app.get('/sign-in', async (c) => {
    const token = c.req.query('token');
    if (token === undefined) return signInForm(c, 200);
    const found = await reviewerOf(token);
    return found === undefined
      ? signInForm(c, 401, { problem: 'That token signs no reviewer in.' })
      : signInForm(c, 200, { confirm: { token, reviewer: found.reviewer } });
  });
  app.post('/sign-in', async (c) => {
    if (!sameOrigin(c)) return refused(c, 'cross-origin sign-in');
    const form = await c.req.parseBody();
    const over = fieldOverCap(c, form);
    if (over !== undefined) return over;
    const nonce = getCookie(c, SIGN_IN_COOKIE);
    if (nonce === undefined || typeof form.nonce !== 'string' || !sameSecret(form.nonce, nonce))
      return refused(c, 'a sign-in not sent from this server’s sign-in page');
    return signIn(c, typeof form.token === 'string' ? form.token : '');
  });

  // Everything past here needs a session; a change needs the session's CSRF token from this origin too.
  app.use(async (c, next) => {
    const session = sessions.get(getCookie(c, SESSION_COOKIE));
    if (session === undefined) return signInForm(c, c.req.method === 'GET' ? 401 : 403);
    if (c.req.method === 'POST') {
      if (!sameOrigin(c)) return refused(c, 'a request from another origin');
      const form = await c.req.parseBody();
      const over = fieldOverCap(c, form);
      if (over !== undefined) return over;
      if (typeof form.csrf !== 'string' || !sameSecret(form.csrf, session.csrf))
        return refused(c, 'a form without this session’s CSRF token');
    }
    c.set('session', session);
    await next();
  });

  const render = async (c: Context<Env>, title: string, body: Html, status = 200): Promise<Response> => {
    const bar = statusBar(await queue.stats(), c.get('session'));
    return c.html(page({ title, body, status: bar }), status as 200);
  };

  const noSuchItem = (c: Context<Env>): Promise<Response> =>
    render(
      c,
      'Not found',
      html`<h1>No such item</h1>
        <p><a href="/">Back to the queue</a></p>`,
      404,
    );

  /** Missions and task types of the runs behind `entries`, read from the ledger once per unknown run (an indexed look-up each). */
  const infoFor = async (entries: readonly ReviewEntry[]): Promise<ReadonlyMap<string, RunInfo>> => {
    const found = new Map<string, RunInfo>();
    if (ledger === undefined) return found;
    for (const runId of new Set(entries.map(({ item }) => ledgerRunOf(item.runId)))) {
      if (runInfo.has(runId)) continue;
      const [run] = await ledger.runs({ runId });
      runInfo.set(runId, run === undefined ? null : { missionId: run.missionId, taskType: run.taskType });
    }
    for (const { item } of entries) {
      const info = runInfo.get(ledgerRunOf(item.runId));
      if (info !== undefined && info !== null) found.set(item.runId, info);
    }
    return found;
  };

  app.get('/', async (c) => {
    const pageNumber = Math.max(1, Math.min(10_000, Number.parseInt(c.req.query('page') ?? '1', 10) || 1));
    const verification = c.req.query('verification') || undefined;
    const taskType = c.req.query('taskType') || undefined;
    const filter: QueueFilter = {
      page: pageNumber,
      ...(verification === undefined ? {} : { verification }),
      ...(taskType === undefined ? {} : { taskType }),
    };
    const filtered = verification !== undefined || taskType !== undefined;
    // Unfiltered, only the pages up to this one are read; a filter reads the queue whole.
    const listed = await queue.list(filtered ? {} : { limit: pageNumber * PAGE_SIZE + 1 });
    const runs = await infoFor(filtered ? listed : listed.slice((pageNumber - 1) * PAGE_SIZE, pageNumber * PAGE_SIZE));
    const matching = listed.filter(
      ({ item }) =>
        (verification === undefined || item.verification === verification) &&
        (taskType === undefined || runs.get(item.runId)?.taskType === taskType),
    );
    const entries = matching.slice((pageNumber - 1) * PAGE_SIZE, pageNumber * PAGE_SIZE);
    const taskTypes = [...new Set([...runInfo.values()].flatMap((info) => (info === null ? [] : [info.taskType])))].sort();
    const after = await afterNotice(c.req.query('after'));
    const body = html`${after}${queuePage({
      entries,
      runs,
      taskTypes,
      filter,
      depth: await queue.depth(),
      hasMore: matching.length > pageNumber * PAGE_SIZE,
      session: c.get('session'),
      at: now(),
    })}`;
    return render(c, 'Queue', body);
  });

  /** "Your verdict on X was recorded", read back from the queue (so nothing in the URL is echoed). */
  const afterNotice = async (itemId: string | undefined): Promise<Html | undefined> => {
    if (itemId === undefined) return undefined;
    const verdict = (await queue.get(itemId))?.verdict;
    if (verdict === undefined) return undefined;
    return html`<p class="notice" role="status" id="after">
      ${verdict.decision === 'approve' ? 'Approved' : 'Rejected'} <code>${verdict.itemId}</code> (${verdict.label}).
    </p>`;
  };

  /** One claim at a time per reviewer: a reviewer's requests that claim wait for each other. */
  const claiming = new Map<string, Promise<unknown>>();
  /**
   * The next item for `reviewer`: a new claim while they hold fewer than `claimsPerReviewer` live ones,
   * else the first one they hold (`held`).
   */
  const claimNext = (reviewer: string): Promise<{ entry: ReviewEntry | undefined; held: boolean }> => {
    const turn = (claiming.get(reviewer) ?? Promise.resolve()).then(async () => {
      const at = now();
      const holding = (await queue.list()).filter(({ claim }) => claim?.reviewer === reviewer && claim.leaseUntil > at);
      if (holding.length >= claimsPerReviewer) return { entry: holding[0], held: true };
      return { entry: await queue.claim(reviewer, { leaseMs }), held: false };
    });
    const settled = turn.catch(() => undefined);
    claiming.set(reviewer, settled);
    void settled.then(() => {
      if (claiming.get(reviewer) === settled) claiming.delete(reviewer);
    });
    return turn;
  };

  app.post('/next', async (c) => {
    const { entry, held } = await claimNext(c.get('session').reviewer);
    if (entry === undefined) return c.redirect('/?empty', 303);
    return c.redirect(`/items/${encodeURIComponent(entry.item.id)}${held ? '?held' : ''}`, 303);
  });

  // The reviewer's live claims go back to the queue.
  app.post('/release', async (c) => {
    await queue.releaseClaims(c.get('session').reviewer);
    return c.redirect('/?released', 303);
  });

  app.get('/items/:id', async (c) => {
    const entry = await queue.get(c.req.param('id'));
    if (entry === undefined) return noSuchItem(c);
    const body = briefPage({
      entry,
      labels: queue.config.labels.labels,
      session: c.get('session'),
      at: now(),
      message:
        c.req.query('held') === undefined
          ? await afterNotice(c.req.query('after'))
          : html`<p class="notice" role="status" id="held">
              You already hold as many items as one reviewer may (${claimsPerReviewer}): decide or release this one first.
            </p>`,
    });
    return render(c, `Brief ${entry.item.id}`, body);
  });

  // Spelled out as every page spells agent text (`visibleText`): a bidi control or zero-width character
  // in a whole output or diff reaches the reviewer as `\u{202e}`, never as reordered or hidden text.
  const plainText = (c: Context<Env>, text: string | undefined): Response =>
    text === undefined
      ? c.text('No such output', 404)
      : c.body(visibleText(text), 200, { 'Content-Type': 'text/plain; charset=utf-8', 'Content-Disposition': 'inline' });

  // The whole of one output, as plain text (never HTML, never sniffed): what the brief cut. `before`: the file before the run.
  app.get('/items/:id/output', async (c) => {
    const entry = await queue.get(c.req.param('id'));
    const file = c.req.query('file');
    const output = entry?.item.finalOutput;
    if (output === undefined) return plainText(c, undefined);
    if (file === undefined)
      return plainText(c, c.req.query('value') !== undefined && output.value !== undefined ? valueText(output.value) : undefined);
    const side = c.req.query('before') === undefined ? output.files : (output.baseline ?? {});
    const text = Object.hasOwn(side, file) ? side[file] : undefined;
    return plainText(c, typeof text === 'string' ? text : undefined);
  });

  // The whole diff of one changed file against the file before the run, as plain text.
  app.get('/items/:id/diff', async (c) => {
    const entry = await queue.get(c.req.param('id'));
    const file = c.req.query('file');
    const change = entry === undefined || file === undefined ? undefined : fileChange(entry.item, file);
    return plainText(c, change?.kind === 'diff' ? change.diff : undefined);
  });

  app.post('/items/:id/verdict', async (c) => {
    const itemId = c.req.param('id');
    const session = c.get('session');
    const form = await c.req.parseBody();
    const decision = form.decision;
    const label = typeof form.label === 'string' ? form.label : '';
    const comment = typeof form.comment === 'string' && form.comment.trim() !== '' ? form.comment.trim() : undefined;
    const problem = async (message: string, status: number): Promise<Response> => {
      const entry = await queue.get(itemId);
      if (entry === undefined) return noSuchItem(c);
      const body = briefPage({
        entry,
        labels: queue.config.labels.labels,
        session,
        at: now(),
        message: html`<p class="error" role="alert" id="problem">${message}</p>`,
      });
      return render(c, `Brief ${itemId}`, body, status);
    };
    if (decision !== 'approve' && decision !== 'reject') return problem('Choose approve or reject.', 400);
    if (label === '') return problem('Choose a reason label.', 400);
    try {
      const result = await queue.verdict(itemId, {
        reviewer: session.reviewer,
        decision,
        label,
        ...(comment === undefined ? {} : { comment }),
      });
      // A repeated verdict (a double submit) changed nothing: it takes no new item either.
      const next = result.repeated ? undefined : (await claimNext(session.reviewer)).entry;
      const after = `after=${encodeURIComponent(itemId)}`;
      return c.redirect(next === undefined ? `/?${after}` : `/items/${encodeURIComponent(next.item.id)}?${after}`, 303);
    } catch (error) {
      if (error instanceof ReviewError) return problem(error.message, error.code === 'review.not_found' ? 404 : 409);
      throw error;
    }
  });

  filterRoutes(app, { queue, render });
  runsRoutes(app, { ledger, queue, render, publicKeys, pollMs: livePollMs, now });
  reportsRoutes(app, { ledger, render });

  app.get('/runs/:runId/evidence', async (c) => {
    const runId = ledgerRunOf(c.req.param('runId'));
    if (ledger === undefined)
      return render(
        c,
        'Evidence',
        html`<h1>Evidence</h1>
          <p class="notice">No ledger is open.</p>`,
        404,
      );
    const [run] = await ledger.runs({ runId });
    const stored = run === undefined ? [] : await ledger.stored(run.runId);
    const records = run === undefined ? [] : await ledger.records(run.runId);
    const body = evidencePage({ runId, run, records, verification: run === undefined ? undefined : verifyRun(run, stored) });
    return render(c, `Evidence ${runId}`, body, run === undefined ? 404 : 200);
  });

  app.post('/sign-out', async (c) => {
    const session = c.get('session');
    sessions.end(session.id);
    // The reviewer's claims go back to the queue, unless they are still signed in elsewhere.
    if (!sessions.signedIn(session.reviewer)) await queue.releaseClaims(session.reviewer);
    deleteCookie(c, SESSION_COOKIE, { path: '/' });
    return c.redirect('/sign-in', 303);
  });

  app.onError((error, c) => {
    if (error instanceof TypeError)
      return c.html(
        page({
          title: 'Bad request',
          body: html`<h1>Bad request</h1>
            <p class="error">${error.message}</p>`,
        }),
        400,
      );
    return c.html(
      page({
        title: 'Error',
        body: html`<h1>Something went wrong</h1>
          <p class="error">${String(error?.message ?? error)}</p>`,
      }),
      500,
    );
  });
  return app;
}

/** Whether a POST comes from this origin: browsers send `Origin` with every POST; one naming another origin is refused. */
function sameOrigin(c: Context): boolean {
  const origin = c.req.header('Origin');
  if (origin === undefined) return c.req.header('Sec-Fetch-Site') === undefined || c.req.header('Sec-Fetch-Site') === 'same-origin';
  const host = c.req.header('Host');
  return host !== undefined && (origin === `http://${host}` || origin === `https://${host}`);
}

/** The name a `Host` header gives, lowercased, without its port (`[::1]:4848` → `[::1]`). */
function hostNameOf(host: string): string {
  const name = host.startsWith('[') ? host.slice(0, host.indexOf(']') + 1) : host.replace(/:\d*$/, '');
  return name.toLowerCase();
}

function refused(c: Context, what: string): Response {
  return c.html(
    page({
      title: 'Refused',
      body: html`<h1>Refused</h1>
        <p class="error">The server refused ${what}.</p>`,
    }),
    403,
  );
}
