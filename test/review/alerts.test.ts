import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { alertLine, alertPolicy, alertStep, budgetAlerts, type AlertPolicy } from '../../src/review/alerts.js';
import { MemoryReviewQueue } from '../../src/review/memory/memory-review-queue.js';
import { testRuntime } from './fixtures.js';

const reports = (capped: readonly boolean[]) => capped.map((budgetCapped, n) => ({ runId: `r${n}`, budgetCapped }));

describe('budget-cap alert policy', () => {
  const policy: AlertPolicy = alertPolicy({ threshold: 0.5, window: 4 });

  it('defaults to more than half of the last 20 runs, and refuses impossible settings', () => {
    assert.deepEqual(alertPolicy(), { threshold: 0.5, window: 20 });
    assert.throws(() => alertPolicy({ threshold: 1 }), {
      name: 'TypeError',
      message: 'Expected the alert threshold to be a fraction in [0, 1), got 1',
    });
    assert.throws(() => alertPolicy({ window: 0 }), /Expected the alert window to be a positive integer, got 0/);
  });

  it('waits for a full window, raises above the threshold once, and rearms at or below it', () => {
    assert.deepEqual(alertStep({ policy, active: false, recent: reports([true, true, true]) }), { active: false });
    assert.deepEqual(
      alertStep({ policy, active: false, recent: reports([true, false, true, false]) }),
      { active: false },
      'exactly one half is not above it',
    );
    assert.deepEqual(alertStep({ policy, active: false, recent: reports([false, true, true, false, true]) }), {
      active: true,
      raise: { share: 0.75, threshold: 0.5, window: 4, cappedRunIds: ['r1', 'r2', 'r4'] },
    });
    assert.deepEqual(alertStep({ policy, active: true, recent: reports([true, true, true, true]) }), { active: true });
    assert.deepEqual(alertStep({ policy, active: true, recent: reports([true, true, false, false]) }), { active: false });
  });
});

interface Received {
  readonly method: string;
  readonly headers: IncomingMessage['headers'];
  readonly body: unknown;
}

describe('budget-cap alerts: log line and webhook', () => {
  const received: Received[] = [];
  /** How the local server answers the next request: a status, or no answer at all. */
  let answer: number | 'hang' = 204;
  const hanging: ServerResponse[] = [];
  const server = createServer((request, response) => {
    let body = '';
    request.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
    request.on('end', () => {
      received.push({ method: request.method ?? '', headers: request.headers, body: JSON.parse(body) });
      if (answer === 'hang') hanging.push(response);
      else response.writeHead(answer).end();
    });
  });
  let url = '';

  before(async () => {
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks/secret-token`;
  });

  after(async () => {
    for (const response of hanging) response.destroy();
    server.closeAllConnections();
    server.close();
    await once(server, 'close');
  });

  /** A queue whose alert window is 2 runs, alerts over it, and the log lines they wrote. */
  function setup(webhook?: { url: string; timeoutMs?: number }) {
    const clock = testRuntime();
    const queue = new MemoryReviewQueue(clock.options({ alerts: { threshold: 0.5, window: 2 } }));
    const lines: string[] = [];
    const alerts = budgetAlerts({
      queue,
      logger: { warn: (line) => lines.push(line) },
      ...(webhook === undefined ? {} : { webhook }),
      _internal: { now: clock.now },
    });
    return { clock, queue, lines, alerts };
  }

  it('logs the alert and posts it as JSON to the webhook, recording the delivery', async () => {
    received.length = 0;
    answer = 204;
    const { clock, queue, lines, alerts } = setup({ url });
    assert.deepEqual(await alerts.runFinished({ runId: 'a', budgetCapped: true }), {});
    const { alert } = await alerts.runFinished({ runId: 'b', budgetCapped: true });
    const raised = {
      id: 'id-1',
      kind: 'budget_cap_share',
      share: 1,
      threshold: 0.5,
      window: 2,
      cappedRunIds: ['a', 'b'],
      raisedAt: clock.now(),
    } as const;
    const line = 'redline alert budget_cap_share: 2 of the last 2 runs (100%) hit a budget cap, above the 50% threshold';
    assert.deepEqual(lines, [line]);
    assert.equal(alertLine(raised), line);
    const origin = new URL(url).origin;
    assert.deepEqual(alert, { ...raised, webhook: { origin, ok: true, status: 204, at: clock.now() } });
    assert.equal(received.length, 1);
    assert.equal(received[0]?.method, 'POST');
    assert.equal(received[0]?.headers['content-type'], 'application/json');
    assert.deepEqual(received[0]?.body, { type: 'redline.alert', text: line, alert: raised });
    assert.deepEqual(await queue.alerts(), [alert], 'the delivery is stored with the alert, without the secret path');
    assert.deepEqual(await alerts.runFinished({ runId: 'c', budgetCapped: true }), {}, 'one alert per crossing');
    assert.equal(received.length, 1);
  });

  it('records a webhook that answers with an error status, and does not throw', async () => {
    answer = 500;
    const { alerts, queue } = setup({ url });
    await alerts.runFinished({ runId: 'a', budgetCapped: true });
    const { alert } = await alerts.runFinished({ runId: 'b', budgetCapped: true });
    assert.deepEqual(alert?.webhook && { ok: alert.webhook.ok, status: alert.webhook.status, error: alert.webhook.error }, {
      ok: false,
      status: 500,
      error: 'HTTP 500',
    });
    assert.deepEqual((await queue.alerts())[0]?.webhook, alert?.webhook);
  });

  it('gives up on a webhook that does not answer within the timeout, and records why', async () => {
    answer = 'hang';
    const { alerts } = setup({ url, timeoutMs: 200 });
    await alerts.runFinished({ runId: 'a', budgetCapped: true });
    const started = Date.now();
    const { alert } = await alerts.runFinished({ runId: 'b', budgetCapped: true });
    assert.ok(Date.now() - started < 2_000, 'the timeout held');
    assert.deepEqual(alert?.webhook && { ok: alert.webhook.ok, error: alert.webhook.error }, {
      ok: false,
      error: 'timed out after 200 ms',
    });
  });

  it('records a webhook nobody listens on', async () => {
    const closed = createServer();
    closed.listen(0, '127.0.0.1');
    await once(closed, 'listening');
    const port = (closed.address() as AddressInfo).port;
    closed.close();
    await once(closed, 'close');
    const { alerts } = setup({ url: `http://127.0.0.1:${port}/` });
    await alerts.runFinished({ runId: 'a', budgetCapped: true });
    const { alert } = await alerts.runFinished({ runId: 'b', budgetCapped: true });
    assert.equal(alert?.webhook?.ok, false);
    assert.match(alert?.webhook?.error ?? '', /ECONNREFUSED/);
  });

  it('only logs without a webhook, and refuses a webhook that is not http(s)', async () => {
    const { alerts, lines } = setup();
    await alerts.runFinished({ runId: 'a', budgetCapped: true });
    const { alert } = await alerts.runFinished({ runId: 'b', budgetCapped: false });
    assert.equal(alert, undefined, 'one of two is not above one half');
    assert.deepEqual(lines, []);
    assert.throws(() => budgetAlerts({ queue: new MemoryReviewQueue(), webhook: { url: 'ftp://example.com' } }), {
      name: 'TypeError',
      message: 'Expected the webhook url to be an http(s) URL, got "ftp://example.com"',
    });
  });
});
