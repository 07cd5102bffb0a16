import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { describe, it } from 'node:test';
import { openReviewQueue } from '../../src/review/open-review-queue.js';
import { SqliteLedger } from '../../src/ledger/sqlite/sqlite-ledger.js';
import { generateToken, hashToken } from '../../src/review-app/tokens.js';
import { signInWithFetch } from '../helpers/review-app-session.js';
import { tempWorkspace } from '../helpers/workspace.js';
import { brief } from '../review/fixtures.js';
import { appendRun } from '../review-app/runs-fixture.js';
import { redline, ROOT } from './redline.js';

delete process.env.REDLINE_LEDGER;

/** A SQLite ledger holding a review queue with one item. */
async function seededLedger(dir: string): Promise<string> {
  const location = path.join(dir, 'redline.db');
  const queue = await openReviewQueue(location);
  await queue.enqueue(brief('run-1'));
  await queue.close();
  return location;
}

describe('redline review token add', () => {
  it('prints a token once and stores only its hash, under the reviewer’s name', async () => {
    const dir = await tempWorkspace({});
    const ledger = await seededLedger(dir);
    const { code, stdout } = await redline(['review', 'token', 'add', 'ada', '--ledger', ledger]);
    assert.equal(code, 0);
    const token = stdout.split('\n')[1] ?? '';
    assert.match(token, /^[A-Za-z0-9_-]{43}$/);
    const queue = await openReviewQueue(ledger);
    try {
      assert.equal(await queue.reviewerByToken(hashToken(token)), 'ada');
    } finally {
      await queue.close();
    }
    const bytes = await readFile(ledger);
    assert.equal(bytes.includes(token), false, 'the token itself is not in the database');
  });

  it('refuses a ledger that does not exist (exit 2)', async () => {
    const dir = await tempWorkspace({});
    const { code, stderr } = await redline(['review', 'token', 'add', 'ada', '--ledger', path.join(dir, 'missing.db')]);
    assert.equal(code, 2);
    assert.match(stderr, /missing\.db/);
  });
});

// The process boundary is what is tested: the command listens, prints where and a token, and stops on SIGTERM.
describe('redline review serve', () => {
  it('listens on loopback, refuses requests without the token, signs in with the printed one, and stops on SIGTERM', async () => {
    const dir = await tempWorkspace({});
    const ledger = await seededLedger(dir);
    const child = spawn(
      process.execPath,
      [path.join(ROOT, 'bin/redline.js'), 'review', 'serve', '--port', '0', '--reviewer', 'ada', '--ledger', ledger],
      {
        cwd: dir,
        stdio: ['ignore', 'pipe', 'pipe'],
        env: { ...process.env, REDLINE_REVIEW_TOKEN: undefined },
      },
    );
    try {
      const lines = createInterface({ input: child.stdout });
      let signIn: string | undefined;
      for await (const line of lines) {
        const match =
          /sign in as ada \(this link works once, for 10 minutes\): (http:\/\/127\.0\.0\.1:\d+\/sign-in\?token=[A-Za-z0-9_-]+)$/.exec(line);
        if (match !== null) {
          signIn = match[1];
          break;
        }
      }
      assert.ok(signIn !== undefined, 'the sign-in address is printed');
      const origin = new URL(signIn).origin;
      assert.equal((await fetch(`${origin}/`)).status, 401);
      assert.equal((await fetch(`${origin}/sign-in?token=wrong-token-of-some-length`, { redirect: 'manual' })).status, 401);
      // The link asks first: following it signs nothing in.
      const asked = await fetch(signIn, { redirect: 'manual' });
      assert.equal(asked.status, 200);
      assert.equal(asked.headers.get('set-cookie')?.includes('redline_review_session'), false);
      const page = await asked.text();
      assert.match(page, /Sign in as <span id="confirm-reviewer">ada<\/span>\?/);
      const nonce = /name="nonce" value="([^"]+)"/.exec(page)?.[1] ?? '';
      const nonceCookie = (asked.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
      const confirm = (): Promise<Response> =>
        fetch(`${origin}/sign-in`, {
          method: 'POST',
          redirect: 'manual',
          headers: { Origin: origin, Cookie: nonceCookie, 'Content-Type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams({ token: new URL(signIn as string).searchParams.get('token') ?? '', nonce }),
        });
      const signedIn = await confirm();
      assert.equal(signedIn.status, 303);
      const cookie = signedIn.headers.get('set-cookie') ?? '';
      assert.match(cookie, /HttpOnly/);
      assert.match(cookie, /SameSite=Strict/);
      const queue = await fetch(`${origin}/`, { headers: { cookie: /redline_review_session=[^;]+/.exec(cookie)?.[0] ?? '' } });
      assert.equal(queue.status, 200);
      assert.match(await queue.text(), /fix the failing test of run-1/);
      // The printed link has been used: it signs no one in again.
      assert.equal((await confirm()).status, 401);
      assert.equal((await fetch(signIn, { redirect: 'manual' })).status, 401);
    } finally {
      child.kill('SIGTERM');
    }
    const code = await new Promise<number | null>((resolve) => child.once('close', (exit) => resolve(exit)));
    assert.equal(code, 0);
  });

  it('takes no verdict once its ledger file is deleted or replaced: 503 with the reason, said once on stderr', async () => {
    const dir = await tempWorkspace({});
    const ledger = await seededLedger(dir);
    const child = spawn(
      process.execPath,
      [path.join(ROOT, 'bin/redline.js'), 'review', 'serve', '--port', '0', '--reviewer', 'ada', '--ledger', ledger],
      { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, REDLINE_REVIEW_TOKEN: undefined } },
    );
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => void (stderr += chunk.toString('utf8')));
    try {
      let signIn: string | undefined;
      for await (const line of createInterface({ input: child.stdout })) {
        signIn =
          /sign in as ada \(this link works once, for 10 minutes\): (http:\/\/127\.0\.0\.1:\d+\/sign-in\?token=[A-Za-z0-9_-]+)$/.exec(
            line,
          )?.[1];
        if (signIn !== undefined) break;
      }
      assert.ok(signIn !== undefined, 'the sign-in address is printed');
      const origin = new URL(signIn).origin;
      const { cookie, post } = await signInWithFetch({ url: origin }, new URL(signIn).searchParams.get('token') ?? '');
      assert.equal((await post('/next', {})).status, 303, 'the file in place: a claim is taken');

      await rm(ledger);
      await rm(`${ledger}-wal`, { force: true });
      await rm(`${ledger}-shm`, { force: true });
      const claim = await post('/next', {});
      assert.equal(claim.status, 503);
      assert.match(await claim.text(), /takes no more verdicts: the ledger file \S+redline\.db was deleted after this process opened it/);
      const verdict = await post('/items/run-1/verdict', { decision: 'approve', label: 'ok' });
      assert.equal(verdict.status, 503);

      // A later run creates a new file at the path: the server does not take it for the one it opened.
      await seededLedger(dir);
      const replaced = await fetch(`${origin}/`, { headers: { cookie } });
      assert.equal(replaced.status, 503);
      assert.match(await replaced.text(), /was replaced by another file after this process opened it/);
      const queue = await openReviewQueue(ledger);
      try {
        assert.equal((await queue.get('run-1'))?.verdict, undefined, 'no verdict went anywhere');
      } finally {
        await queue.close();
      }
      assert.equal(
        stderr.match(/review app: taking no more verdicts: the ledger file \S+ was deleted after this process opened it/g)?.length,
        1,
        stderr,
      );
    } finally {
      child.kill('SIGTERM');
      await new Promise((resolve) => child.once('close', resolve));
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('redline serve', () => {
  it('serves the runs beside the queue: a sign-in lands on the runs, which list the ledger’s runs; stops on SIGTERM', async () => {
    const dir = await tempWorkspace({});
    const ledger = await seededLedger(dir);
    const runs = await SqliteLedger.open({ database: ledger });
    await appendRun(runs, { runId: 'served-run', missionId: 'fix-parser', at: Date.parse('2026-11-30T10:00:00Z') });
    await runs.close();
    const token = generateToken();
    const child = spawn(
      process.execPath,
      [path.join(ROOT, 'bin/redline.js'), 'serve', '--port', '0', '--reviewer', 'ada', '--ledger', ledger],
      {
        cwd: dir,
        stdio: ['ignore', 'pipe', 'pipe'],
        env: { ...process.env, REDLINE_REVIEW_TOKEN: token },
      },
    );
    try {
      let origin: string | undefined;
      for await (const line of createInterface({ input: child.stdout })) {
        origin = /^runs and review app for .* at (http:\/\/127\.0\.0\.1:\d+)$/.exec(line)?.[1];
        if (origin !== undefined) break;
      }
      assert.ok(origin !== undefined, 'the address is printed');
      assert.equal((await fetch(`${origin}/runs`)).status, 401);
      const form = await fetch(`${origin}/sign-in`);
      const nonce = /name="nonce" value="([^"]+)"/.exec(await form.text())?.[1] ?? '';
      const signedIn = await fetch(`${origin}/sign-in`, {
        method: 'POST',
        redirect: 'manual',
        headers: {
          Origin: origin,
          Cookie: (form.headers.get('set-cookie') ?? '').split(';')[0] ?? '',
          'Content-Type': 'application/x-www-form-urlencoded',
        },
        body: new URLSearchParams({ token, nonce }),
      });
      assert.equal(signedIn.status, 303);
      assert.equal(signedIn.headers.get('location'), '/runs');
      const cookie = /redline_review_session=[^;]+/.exec(signedIn.headers.get('set-cookie') ?? '')?.[0] ?? '';
      const page = await (await fetch(`${origin}/runs`, { headers: { cookie } })).text();
      assert.match(page, /data-href="\/runs\/served-run"/);
      const run = await (await fetch(`${origin}/runs/served-run`, { headers: { cookie } })).text();
      assert.match(run, /class="signature-unsigned">\s*Signature:\s*not signed/);
    } finally {
      child.kill('SIGTERM');
    }
    const code = await new Promise<number | null>((resolve) => child.once('close', (exit) => resolve(exit)));
    assert.equal(code, 0);
  });
});
