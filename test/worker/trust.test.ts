import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import pg from 'pg';
import { PostgresLedger } from '../../src/ledger/postgres/postgres-ledger.js';
import { defineMission, missionHash } from '../../src/mission/mission.js';
import { contentHash, manifestHash, type ManifestEntry } from '../../src/workspace/manifest.js';
import { tempWorkspace } from '../helpers/workspace.js';
import { redline } from '../cli/redline.js';
import { answerMission, fleetSchema, SERVER, submitterKey } from './fleet-helpers.js';

// Workers run what a trusted submitter signed, not whatever the database says: a row changed after it was
// signed, one whose signature was removed, or one signed by a key the worker does not trust is refused
// (never run, its row saying why); --trust-database is the explicit opt-out.
const signed = fleetSchema('redline_trust');
const unsigned = fleetSchema('redline_trust_db');
const resumed = fleetSchema('redline_trust_resume');
after(() => Promise.all([signed.drop(), unsigned.drop(), resumed.drop()]));

const PROPOSER = `printf '%s' '{"files":{"src/answer.txt":"42\\n"}}'`;

/** Runs `sql` on the test server: the rows it returns. */
async function sql(text: string, values: unknown[] = []): Promise<Record<string, unknown>[]> {
  const client = new pg.Client({ connectionString: SERVER });
  await client.connect();
  try {
    return (await client.query(text, values)).rows as Record<string, unknown>[];
  } finally {
    await client.end();
  }
}

/** Submits `<id>` (signed with `sign`) to `url` and returns its submission id. */
async function submit(dir: string, id: string, url: string, sign: string[]): Promise<string> {
  const done = await redline(['submit', await answerMission(dir, id), '--postgres', url, '--proposer', PROPOSER, '--json', ...sign]);
  assert.equal(done.code, 0, done.stderr);
  return (JSON.parse(done.stdout) as { submission: string }).submission;
}

interface Status {
  refusedSubmissions: number;
  refused: { submission: string; reason: string }[];
}

describe('redline worker without a trust flag', () => {
  it('refuses to start, naming --trust-key and --trust-database (exit 2)', async () => {
    const neither = await redline(['worker', '--postgres', signed.url, '--until-idle']);
    assert.equal(neither.code, 2);
    assert.match(neither.stderr, /--trust-key FILE .* or --trust-database .* got neither/);
    const dir = await tempWorkspace({});
    const both = await redline(['worker', '--postgres', signed.url, '--until-idle', '--trust-database', ...submitterKey(dir).trust]);
    assert.equal(both.code, 2);
    assert.match(both.stderr, /Expected --trust-key or --trust-database, got both/);
  });
});

describe('a worker that trusts the submitter key', () => {
  it(
    'runs a signed submission, and refuses every row changed, unsigned or signed by another key, running none of them',
    { timeout: 90_000 },
    async () => {
      const dir = await tempWorkspace({});
      const keys = await tempWorkspace({});
      const trusted = submitterKey(keys, 'trusted');
      const stranger = submitterKey(keys, 'stranger');
      const good = await submit(dir, 'good', signed.url, trusted.sign);
      const missionAttack = await submit(dir, 'mission-attack', signed.url, trusted.sign);
      const proposerAttack = await submit(dir, 'proposer-attack', signed.url, trusted.sign);
      const manifestAttack = await submit(dir, 'manifest-attack', signed.url, trusted.sign);
      const stripped = await submit(dir, 'stripped', signed.url, trusted.sign);
      const untrusted = await submit(dir, 'untrusted', signed.url, stranger.sign);
      const S = `"${signed.schema}"`;
      const pwned = path.join(dir, 'pwned');
      // The attack from the issue: the check's command rewritten in the row's JSON.
      await sql(`UPDATE ${S}.worker_submissions SET mission = jsonb_set(mission, '{checks,0,command}', $2::jsonb) WHERE id = $1`, [
        missionAttack,
        JSON.stringify(`id > ${pwned}-mission; cat src/answer.txt`),
      ]);
      await sql(`UPDATE ${S}.worker_submissions SET proposer = $2 WHERE id = $1`, [proposerAttack, `id > ${pwned}-proposer; ${PROPOSER}`]);
      // A file of the workspace swapped for other bytes: a blob stored under their hash, the manifest (and its hash) pointing at it.
      const evil = Buffer.from(`#!/bin/sh\nid > ${pwned}-manifest\n`);
      await sql(`INSERT INTO ${S}.worker_blobs (hash, size) VALUES ($1, $2)`, [contentHash(evil), evil.length]);
      await sql(`INSERT INTO ${S}.worker_blob_parts (hash, part, bytes) VALUES ($1, 0, $2)`, [contentHash(evil), evil]);
      const [row] = await sql(`SELECT manifest FROM ${S}.worker_submissions WHERE id = $1`, [manifestAttack]);
      const manifest = (row?.manifest as [string, Record<string, unknown>][]).map(([file, entry]) =>
        file === 'src/answer.txt' ? [file, { ...entry, hash: contentHash(evil), size: evil.length, mode: 0o755 }] : [file, entry],
      );
      await sql(`UPDATE ${S}.worker_submissions SET manifest = $2, manifest_hash = $3 WHERE id = $1`, [
        manifestAttack,
        JSON.stringify(manifest),
        manifestHash(new Map(manifest as [string, ManifestEntry][])),
      ]);
      await sql(`UPDATE ${S}.worker_submissions SET signature = NULL, key_id = NULL WHERE id = $1`, [stripped]);

      const worker = await redline([
        'worker',
        '--postgres',
        signed.url,
        '--concurrency',
        '2',
        '--until-idle',
        '--workdir',
        path.join(dir, 'work'),
        ...trusted.trust,
      ]);
      assert.equal(worker.code, 0, worker.stderr);
      for (const suffix of ['mission', 'proposer', 'manifest'])
        assert.equal(existsSync(`${pwned}-${suffix}`), false, `${suffix}: ${worker.stderr}`);
      const ledger = await PostgresLedger.open({ connection: SERVER, schema: signed.schema });
      try {
        const runs = await ledger.runs({});
        assert.deepEqual(
          runs.map((run) => [run.runId, run.outcome]),
          [[good, 'complete']],
          'only the signed, unchanged submission ran',
        );
      } finally {
        await ledger.close();
      }
      const status = await redline(['status', '--postgres', signed.url, '--json']);
      const state = JSON.parse(status.stdout) as Status;
      assert.equal(state.refusedSubmissions, 5);
      const reasons = new Map(state.refused.map((row) => [row.submission, row.reason]));
      const changed = /does not match its signature by key [0-9a-f]{16}: its mission, proposer or workspace changed after it was signed/;
      assert.match(reasons.get(missionAttack) ?? '', changed);
      assert.match(reasons.get(proposerAttack) ?? '', changed);
      assert.match(reasons.get(manifestAttack) ?? '', changed);
      assert.match(
        reasons.get(stripped) ?? '',
        /is not signed; this worker runs only submissions signed by a key it trusts \(--trust-key\)/,
      );
      assert.match(reasons.get(untrusted) ?? '', /is signed by key [0-9a-f]{16}, which this worker does not trust/);
      assert.match(worker.stderr, new RegExp(`submission ${missionAttack} not run: .*\\(refused\\)`));
      const text = await redline(['status', '--postgres', signed.url]);
      assert.match(text.stdout, /6 submissions \(5 refused\)/);
      assert.match(text.stdout, new RegExp(`refused {7}${stripped} mission stripped: submission ${stripped} is not signed`));
    },
  );
});

describe('a worker resuming a run', () => {
  it('refuses one whose run.started in the ledger records a mission other than the signed one', { timeout: 90_000 }, async () => {
    const dir = await tempWorkspace({});
    const key = submitterKey(dir);
    const donor = await submit(dir, 'donor', resumed.url, key.sign);
    const work = ['--until-idle', '--workdir', path.join(dir, 'work'), ...key.trust];
    assert.equal((await redline(['worker', '--postgres', resumed.url, ...work])).code, 0);
    const victim = await submit(dir, 'victim', resumed.url, key.sign);
    const pwned = path.join(dir, 'pwned-resume');
    const ledger = await PostgresLedger.open({ connection: SERVER, schema: resumed.schema });
    try {
      // Someone who can write the database starts the signed submission's run in the ledger with a mission of their own.
      const [started] = await ledger.records(donor);
      assert.equal(started?.type, 'run.started');
      const data = started.data as unknown as {
        mission: Record<string, unknown> & { checks: Record<string, unknown>[] };
        missionHash: string;
      };
      const { baseDir, workspaceDir: _workspaceDir, ...spec } = data.mission;
      const forged = { ...spec, id: 'victim', checks: [{ ...data.mission.checks[0], command: `id > ${pwned}; cat src/answer.txt` }] };
      const hash = missionHash(defineMission(forged, { baseDir: String(baseDir), source: 'forged' }));
      await ledger.append({
        runId: victim,
        seq: 0,
        type: 'run.started',
        at: Date.now(),
        data: { ...started.data, mission: { ...data.mission, ...forged }, missionHash: hash },
      });
    } finally {
      await ledger.close();
    }
    const worker = await redline(['worker', '--postgres', resumed.url, ...work]);
    assert.equal(worker.code, 0, worker.stderr);
    assert.equal(existsSync(pwned), false, worker.stderr);
    assert.match(worker.stderr, new RegExp(`run ${victim} in the ledger records a mission other than its signed submission's`));
  });
});

describe('a worker with --trust-database', () => {
  it('runs an unsigned row as stored', { timeout: 60_000 }, async () => {
    const dir = await tempWorkspace({});
    const id = await submit(dir, 'unsigned', unsigned.url, submitterKey(dir).sign);
    await sql(`UPDATE "${unsigned.schema}".worker_submissions SET signature = NULL, key_id = NULL WHERE id = $1`, [id]);
    const worker = await redline([
      'worker',
      '--postgres',
      unsigned.url,
      '--until-idle',
      '--workdir',
      path.join(dir, 'work'),
      '--trust-database',
    ]);
    assert.equal(worker.code, 0, worker.stderr);
    assert.match(worker.stderr, /running every submission as stored \(--trust-database\)/);
    assert.match(worker.stderr, new RegExp(`${id} complete`));
  });
});

describe('the bounds of a submitted workspace', () => {
  it('refuse a file or a workspace too large at submit, naming it, and again at the worker', { timeout: 60_000 }, async () => {
    const dir = await tempWorkspace({});
    const key = submitterKey(dir);
    const file = await answerMission(dir, 'bounded');
    await writeFile(path.join(dir, 'bounded/src/data.bin'), Buffer.alloc(3000, 7));
    const perFile = await redline(['submit', file, '--postgres', unsigned.url, '--max-file-bytes', '2K', ...key.sign]);
    assert.equal(perFile.code, 2);
    assert.match(
      perFile.stderr,
      /Expected every file of the workspace to hold at most 2 KiB \(2048 bytes\) \(--max-file-bytes\), got "src\/data.bin" of 2.9 KiB \(3000 bytes\)/,
    );
    const total = await redline(['submit', file, '--postgres', unsigned.url, '--max-workspace-bytes', '3000', ...key.sign]);
    assert.equal(total.code, 2);
    assert.match(
      total.stderr,
      /Expected a workspace of at most 2.9 KiB \(3000 bytes\) in all \(--max-workspace-bytes\), got 2.9 KiB \(3002 bytes\) in 2 files/,
    );
    const bad = await redline(['submit', file, '--postgres', unsigned.url, '--max-file-bytes', 'lots', ...key.sign]);
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /Expected a positive number of bytes \(such as 65536, 40M or 1G\), got "lots"/);
    const before = JSON.parse((await redline(['status', '--postgres', unsigned.url, '--json'])).stdout) as { submissions: number };
    const id = await submit(dir, 'bounded', unsigned.url, key.sign);
    const after = JSON.parse((await redline(['status', '--postgres', unsigned.url, '--json'])).stdout) as { submissions: number };
    assert.equal(after.submissions, before.submissions + 1, 'only the submission within the bounds was stored');
    const worker = await redline([
      'worker',
      '--postgres',
      unsigned.url,
      '--until-idle',
      '--workdir',
      path.join(dir, 'work'),
      '--max-file-bytes',
      '2K',
      ...key.trust,
    ]);
    assert.equal(worker.code, 0, worker.stderr);
    assert.match(worker.stderr, new RegExp(`submission ${id} not run: Expected every file .* got "src/data.bin" of .* \\(refused\\)`));
    assert.equal(existsSync(path.join(dir, 'work', id, 'workspace')), false);
  });
});
