import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, it } from 'node:test';
import pg from 'pg';
import type { Ledger } from '../../src/ledger/ledger.js';
import { PostgresLedger } from '../../src/ledger/postgres/postgres-ledger.js';
import { SqliteLedger } from '../../src/ledger/sqlite/sqlite-ledger.js';
import { verifyLedger } from '../../src/ledger/verify.js';
import { recoverRuns } from '../../src/loop/resume.js';
import { tempWorkspace } from '../helpers/workspace.js';

// Needs the build (`npm test` builds first): the writer is a plain node process importing dist/.
const WRITER = path.resolve(import.meta.dirname, '../fixtures/ledger/writer.mjs');
const KILLS = 50;
const PG_URL = 'postgres://postgres@127.0.0.1:5432/test';

/** Starts the writer, lets it append for a random while, and kills it with SIGKILL mid-work. */
async function killWriterAtRandom(args: string[]): Promise<void> {
  const child = spawn(process.execPath, [WRITER, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const [ready] = (await Promise.race([once(child.stdout, 'data'), once(child, 'exit')])) as [Buffer | number];
  assert.ok(Buffer.isBuffer(ready), `the writer exited before it was ready: ${stderr}`);
  await new Promise((resolve) => setTimeout(resolve, 20 + Math.random() * 250));
  child.kill('SIGKILL');
  const [, signal] = await once(child, 'exit');
  assert.equal(signal, 'SIGKILL', `the writer ended on its own: ${stderr}`);
}

async function crashRecoverVerify(open: () => Promise<Ledger>, args: string[]): Promise<{ resumed: number; sealedCrashed: number; runs: number }> {
  let resumed = 0;
  let sealedCrashed = 0;
  for (let kill = 0; kill < KILLS; kill += 1) {
    await killWriterAtRandom(args);
    const ledger = await open();
    try {
      const before = await verifyLedger(ledger);
      assert.deepEqual(before.filter((result) => !result.ok), [], `after kill ${kill + 1}, before recovery`);
      for (const recovery of await recoverRuns({ ledger })) {
        if (recovery.action === 'resumed') resumed += 1;
        else if (recovery.action === 'sealed_crashed') sealedCrashed += 1;
        else assert.fail(`after kill ${kill + 1}: ${recovery.runId} ${recovery.action} (${recovery.detail})`);
      }
      assert.deepEqual(await ledger.runs({ unsealed: true }), [], `after kill ${kill + 1}: recovery leaves no unsealed run`);
      assert.deepEqual((await verifyLedger(ledger)).filter((result) => !result.ok), [], `after kill ${kill + 1}, after recovery`);
    } finally {
      await ledger.close();
    }
  }
  const ledger = await open();
  const runs = (await ledger.runs()).length;
  await ledger.close();
  return { resumed, sealedCrashed, runs };
}

describe('crash safety: a writer killed with SIGKILL at random moments', () => {
  it(`leaves a SQLite ledger that verifies and recovers, ${KILLS} times`, async (t) => {
    const dir = await tempWorkspace({});
    const replay = path.join(dir, 'replay.json');
    await writeFile(replay, JSON.stringify([{ value: { nom: 1 } }, { value: { name: 'a' } }, { value: 3 }, { value: { name: 'b' } }, { value: {} }, { value: { name: 'c' } }]));
    const file = path.join(dir, 'crash.db');
    const totals = await crashRecoverVerify(() => SqliteLedger.open({ database: file }), [file, '', replay]);
    t.diagnostic(`sqlite: ${KILLS} kills, ${totals.runs} runs, ${totals.resumed} resumed, ${totals.sealedCrashed} sealed crashed`);
    assert.ok(totals.resumed > 0 && totals.sealedCrashed > 0, JSON.stringify(totals));
  });

  it(`leaves a PostgreSQL ledger that verifies and recovers, ${KILLS} times`, async (t) => {
    const dir = await tempWorkspace({});
    const replay = path.join(dir, 'replay.json');
    await writeFile(replay, JSON.stringify([{ value: { nom: 1 } }, { value: { name: 'a' } }, { value: 3 }, { value: { name: 'b' } }, { value: {} }, { value: { name: 'c' } }]));
    const schema = `redline_crash_${process.pid}`;
    try {
      const totals = await crashRecoverVerify(() => PostgresLedger.open({ connection: PG_URL, schema }), [PG_URL, schema, replay]);
      t.diagnostic(`postgres: ${KILLS} kills, ${totals.runs} runs, ${totals.resumed} resumed, ${totals.sealedCrashed} sealed crashed`);
      assert.ok(totals.resumed > 0 && totals.sealedCrashed > 0, JSON.stringify(totals));
    } finally {
      const client = new pg.Client(PG_URL);
      await client.connect();
      await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      await client.end();
    }
  });
});
