import assert from 'node:assert/strict';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { SqliteReviewQueue } from '../../src/review/sqlite/sqlite-review-queue.js';
import { serveReviewApp, type ReviewServer } from '../../src/review-app/serve-review-app.js';
import { generateToken } from '../../src/review-app/tokens.js';
import { tempWorkspace } from '../helpers/workspace.js';
import { brief } from '../review/fixtures.js';

// The whole-output views (`/items/ID/output`, `/items/ID/diff`) over the real server: what a run wrote is
// served as plain text with its bidi controls and zero-width characters spelled out, as on every page.

const LINE = 'if (role != "user\u202e \u2066// admin\u2069 \u2066") { grant(); }';
const SPELLED = 'if (role != "user\\u{202e} \\u{2066}// admin\\u{2069} \\u{2066}") { grant(); }';
const HIDDEN = /[\u061c\u200b-\u200f\u202a-\u202e\u2060\u2066-\u2069\ufeff]/u;

describe('the reviewer web app’s whole-output views', () => {
  let dir: string;
  let queue: SqliteReviewQueue;
  let server: ReviewServer;
  let itemId: string;
  let cookie: string;
  const token = generateToken();

  before(async () => {
    dir = await tempWorkspace({});
    queue = await SqliteReviewQueue.open({ database: path.join(dir, 'redline.db'), synchronous: 'off' });
    itemId = (
      await queue.enqueue(
        brief('plain-1', {
          finalOutput: {
            value: 'ok\u200b',
            files: { 'src/a.ts': `const ok = 1;\n${LINE}\n` },
            baseline: { 'src/a.ts': 'const ok = 1;\n' },
          },
        }),
      )
    ).item?.id as string;
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
  });

  after(async () => {
    await server?.close();
    await queue?.close();
    if (dir !== undefined) await rm(dir, { recursive: true, force: true });
  });

  const view = async (route: string): Promise<{ type: string | null; text: string }> => {
    const response = await fetch(`${server.url}/items/${itemId}${route}`, { headers: { Cookie: cookie } });
    assert.equal(response.status, 200, route);
    return { type: response.headers.get('content-type'), text: await response.text() };
  };

  it('spells out bidi controls and zero-width characters in a whole file, its diff and the value, keeping the lines', async () => {
    const file = await view('/output?file=src%2Fa.ts');
    assert.equal(file.type, 'text/plain; charset=utf-8');
    assert.equal(file.text, `const ok = 1;\n${SPELLED}\n`);
    const diff = await view('/diff?file=src%2Fa.ts');
    assert.doesNotMatch(diff.text, HIDDEN);
    assert.ok(diff.text.includes(`+${SPELLED}\n`), diff.text);
    const value = await view('/output?value');
    assert.doesNotMatch(value.text, HIDDEN);
    assert.ok(value.text.includes('ok\\u{200b}'), value.text);
  });
});
