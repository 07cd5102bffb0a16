import assert from 'node:assert/strict';
import { connect, type Socket } from 'node:net';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { SqliteReviewQueue } from '../../src/review/sqlite/sqlite-review-queue.js';
import { FIELD_CAPS, SIGNED_IN_BODY_BYTES, SIGNED_OUT_BODY_BYTES } from '../../src/review-app/request-limits.js';
import { serveReviewApp, type ReviewServer } from '../../src/review-app/serve-review-app.js';
import { generateToken } from '../../src/review-app/tokens.js';
import { tempWorkspace } from '../helpers/workspace.js';
import { brief } from '../review/fixtures.js';

// The reviewer web app's limits on what it accepts, against the real server over real sockets: bodies are
// refused at their cap without being read whole, and idle, slow and surplus connections are closed.

/** A raw connection to `server`, with everything it has received so far and whether it is closed. */
interface Raw {
  readonly socket: Socket;
  readonly received: () => string;
  /** Resolves with the milliseconds until the server closed it; rejects after `withinMs`. */
  readonly closed: (withinMs: number) => Promise<number>;
}

async function raw(server: ReviewServer): Promise<Raw> {
  const socket = connect(server.port, '127.0.0.1');
  socket.on('error', () => {});
  let text = '';
  let closedAt: number | undefined;
  const opened = Date.now();
  socket.on('data', (chunk: Buffer) => (text += chunk.toString('latin1')));
  const ended = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  void ended.then(() => (closedAt = Date.now()));
  await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
  return {
    socket,
    received: () => text,
    closed: async (withinMs) => {
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<never>((_, reject) => {
        timer = setTimeout(
          () => reject(new Error(`still open after ${withinMs} ms; received ${JSON.stringify(text.slice(0, 80))}`)),
          withinMs,
        );
      });
      try {
        await Promise.race([ended, late]);
      } finally {
        clearTimeout(timer);
      }
      return (closedAt ?? Date.now()) - opened;
    },
  };
}

const statusOf = (response: string): number => Number(/^HTTP\/1\.1 (\d{3})/.exec(response)?.[1]);

describe('the reviewer web app bounds request bodies', () => {
  let queue: SqliteReviewQueue;
  let server: ReviewServer;
  let itemId: string;
  const token = generateToken();
  let cookie: string;
  let csrf: string;

  before(async () => {
    const dir = await tempWorkspace({});
    queue = await SqliteReviewQueue.open({ database: path.join(dir, 'redline.db'), synchronous: 'off' });
    itemId = (await queue.enqueue(brief('limits-1'))).item?.id as string;
    server = await serveReviewApp({ queue, startToken: token, startReviewer: 'ada' });
    const form = await fetch(`${server.url}/sign-in`);
    const nonce = /name="nonce" value="([^"]+)"/.exec(await form.text())?.[1] as string;
    const signIn = await fetch(`${server.url}/sign-in`, {
      method: 'POST',
      redirect: 'manual',
      headers: {
        Origin: server.url,
        Cookie: (form.headers.get('set-cookie') ?? '').split(';')[0] as string,
        'Content-Type': 'application/x-www-form-urlencoded',
      },
      body: new URLSearchParams({ token, nonce }),
    });
    assert.equal(signIn.status, 303);
    cookie = /redline_review_session=[^;]+/.exec(signIn.headers.get('set-cookie') ?? '')?.[0] as string;
    const brief_ = await (await fetch(`${server.url}/items/${itemId}`, { headers: { Cookie: cookie } })).text();
    csrf = /name="csrf" value="([^"]+)"/.exec(brief_)?.[1] as string;
    assert.ok(csrf);
  });

  after(async () => {
    await server?.close();
    await queue?.close();
  });

  const post = (route: string, fields: Record<string, string>): Promise<Response> =>
    fetch(`${server.url}${route}`, {
      method: 'POST',
      redirect: 'manual',
      headers: { Origin: server.url, Cookie: cookie, 'Content-Type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ csrf, ...fields }),
    });

  it('answers a 200 MB sign-in with 413 after its headers, reading none of the rest, and closes the connection', async () => {
    const connection = await raw(server);
    connection.socket.write(
      `POST /sign-in HTTP/1.1\r\nHost: 127.0.0.1:${server.port}\r\nOrigin: ${server.url}\r\n` +
        'Content-Type: application/x-www-form-urlencoded\r\nContent-Length: 200000000\r\n\r\ntoken=',
    );
    connection.socket.write('x'.repeat(64 * 1024));
    await connection.closed(3_000);
    assert.equal(statusOf(connection.received()), 413);
    assert.match(connection.received(), new RegExp(`at most ${SIGNED_OUT_BODY_BYTES} bytes`));
  });

  it('answers a chunked sign-in body with 413 as soon as it passes the cap', async () => {
    const connection = await raw(server);
    connection.socket.write(
      `POST /sign-in HTTP/1.1\r\nHost: 127.0.0.1:${server.port}\r\nOrigin: ${server.url}\r\n` +
        'Content-Type: application/x-www-form-urlencoded\r\nTransfer-Encoding: chunked\r\n\r\n',
    );
    const chunk = 'x'.repeat(4096);
    for (let index = 0; index < 5; index += 1) connection.socket.write(`${chunk.length.toString(16)}\r\n${chunk}\r\n`);
    // The last chunk is never sent: the answer comes anyway.
    await connection.closed(3_000);
    assert.equal(statusOf(connection.received()), 413);
  });

  it('refuses a signed-in body over its cap with 413', async () => {
    const response = await post(`/items/${itemId}/verdict`, {
      decision: 'approve',
      label: 'unclear',
      pad: 'x'.repeat(SIGNED_IN_BODY_BYTES),
    });
    assert.equal(response.status, 413);
    assert.equal((await queue.get(itemId))?.verdict, undefined);
  });

  it('refuses a verdict comment, a label or a filter pattern over its cap with 413, and writes nothing', async () => {
    const comment = await post(`/items/${itemId}/verdict`, {
      decision: 'approve',
      label: 'unclear',
      comment: 'x'.repeat((FIELD_CAPS.comment as number) + 1),
    });
    assert.equal(comment.status, 413);
    assert.match(await comment.text(), /comment may have at most 4000 characters/);
    const label = await post(`/items/${itemId}/verdict`, { decision: 'approve', label: 'x'.repeat((FIELD_CAPS.label as number) + 1) });
    assert.equal(label.status, 413);
    assert.equal((await queue.get(itemId))?.verdict, undefined);
    const pattern = await post('/filters', {
      label: 'unclear',
      action: 'return',
      pattern: 'x'.repeat((FIELD_CAPS.pattern as number) + 1),
    });
    assert.equal(pattern.status, 413);
    assert.deepEqual(await queue.filterRules(), []);
    // At the cap, the comment is taken.
    const taken = await post(`/items/${itemId}/verdict`, {
      decision: 'approve',
      label: 'unclear',
      comment: 'x'.repeat(FIELD_CAPS.comment as number),
    });
    assert.equal(taken.status, 303);
    assert.equal((await queue.get(itemId))?.verdict?.comment?.length, FIELD_CAPS.comment);
  });
});

describe('the reviewer web app closes idle, slow and surplus connections', () => {
  let queue: SqliteReviewQueue;
  let server: ReviewServer;

  before(async () => {
    const dir = await tempWorkspace({});
    queue = await SqliteReviewQueue.open({ database: path.join(dir, 'redline.db'), synchronous: 'off' });
    server = await serveReviewApp({
      queue,
      startToken: generateToken(),
      connections: { idleTimeoutMs: 400, headersTimeoutMs: 600, requestTimeoutMs: 1_000, keepAliveTimeoutMs: 300, maxConnections: 3 },
    });
  });

  after(async () => {
    await server?.close();
    await queue?.close();
  });

  it('closes a connection on which nothing is sent', async () => {
    const connection = await raw(server);
    const ms = await connection.closed(3_000);
    assert.ok(ms >= 300, `closed after ${ms} ms`);
  });

  it('closes a connection whose headers trickle in slower than the header timeout', async () => {
    const connection = await raw(server);
    connection.socket.write(`GET / HTTP/1.1\r\nHost: 127.0.0.1:${server.port}\r\n`);
    const trickle = setInterval(() => connection.socket.write('X-Slow: 1\r\n'), 100);
    try {
      await connection.closed(3_000);
    } finally {
      clearInterval(trickle);
    }
  });

  it('closes a kept-alive connection after its keep-alive timeout', async () => {
    const connection = await raw(server);
    connection.socket.write(`GET /assets/app.css HTTP/1.1\r\nHost: 127.0.0.1:${server.port}\r\n\r\n`);
    await connection.closed(3_000);
    assert.equal(statusOf(connection.received()), 200);
  });

  it('closes a connection over the cap as it arrives, and serves again once one is gone', async () => {
    const held = [await raw(server), await raw(server), await raw(server)];
    const surplus = await raw(server);
    const ms = await surplus.closed(250);
    assert.ok(ms < 250);
    for (const connection of held) connection.socket.destroy();
    await new Promise((resolve) => setTimeout(resolve, 50));
    const response = await fetch(`${server.url}/assets/app.css`);
    assert.equal(response.status, 200);
  });
});
