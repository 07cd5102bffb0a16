import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cp, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import Database from 'better-sqlite3';
import pg from 'pg';
import { SqliteLedger } from '../../src/ledger/sqlite/sqlite-ledger.js';
import { appendAll } from '../ledger/records.js';
import { tempWorkspace } from '../helpers/workspace.js';
import { redline, ROOT, spawnRedline } from './redline.js';

// Runs the CLI in-process against real SQLite files and the local PostgreSQL. The recorded runs come from
// test/fixtures/ledger/examples.jsonl (a real export, see its README) instead of running the missions.
const PG_URL = 'postgres://postgres@127.0.0.1:5432/test';
const schema = `redline_cli_${process.pid}`;
const EXAMPLES = path.join(ROOT, 'test/fixtures/ledger/examples.jsonl');
/** The runs of examples.jsonl by mission. */
const RUN = {
  isEven: '61bf9221-d2de-4a62-a2c5-00af3636f4ca',
  fizzbuzz: '13b295cb-035e-40aa-9b44-37512c315d94',
  groupBy: 'd7c82ef9-14cd-4622-abe9-8b9d6eb954ac',
  budgetCutoff: 'bffc19ee-bb84-484b-a7b5-e8297e10264c',
} as const;

const runIdOf = (stdout: string): string => (JSON.parse(stdout.trim().split('\n').at(-1) as string) as { runId: string }).runId;

/** A new SQLite ledger in a temporary directory holding the four recorded example runs, imported with `ledger import`. */
async function examplesLedger(): Promise<{ dir: string; db: string }> {
  const dir = await tempWorkspace({});
  const db = path.join(dir, 'l.db');
  const imported = await redline(['ledger', 'import', EXAMPLES, '--ledger', db]);
  assert.equal(imported.code, 0, imported.stderr);
  assert.match(imported.stdout, /imported 4 run\(s\)/);
  return { dir, db };
}

after(async () => {
  const client = new pg.Client(PG_URL);
  await client.connect();
  await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  await client.end();
});

describe('redline ledger, replay and admit', () => {
  it('verifies a SQLite ledger, and names the run, the first bad record and why once a row is edited', async () => {
    const { dir, db } = await examplesLedger();
    const runId = RUN.fizzbuzz;
    assert.equal((await redline(['ledger', 'verify', '--ledger', db])).code, 0);

    // Someone with write access to the file edits a finding, bypassing the append-only triggers.
    const raw = new Database(db);
    raw.exec('DROP TRIGGER records_refuse_update');
    assert.equal(
      raw
        .prepare("UPDATE records SET body = replace(body, 'FizzBuzz', 'Fizzbuzz') WHERE run_id = ? AND seq = 3 AND body LIKE '%FizzBuzz%'")
        .run(runId).changes,
      1,
    );
    raw.close();
    const verify = await redline(['ledger', 'verify', '--ledger', db]);
    assert.equal(verify.code, 1);
    assert.match(verify.stdout, new RegExp(`BROKEN run ${runId}: record 3 modified`));
    // A shell sees exit 1 for a broken chain, and the report on stdout.
    const spawned = spawnRedline(['ledger', 'verify', '--ledger', db]);
    assert.equal(spawned.code, 1, spawned.stderr);
    assert.equal(spawned.stdout, verify.stdout);
    const refused = await redline(['admit', runId, '--to', dir, '--ledger', db]);
    assert.equal(refused.code, 2);
    assert.match(refused.stderr, /does not verify: record 3 modified/);
  });

  it('exports as JSONL and imports into PostgreSQL with every hash intact', async () => {
    const { dir, db } = await examplesLedger();
    const file = path.join(dir, 'export.jsonl');
    assert.equal((await redline(['ledger', 'export', '--format', 'jsonl', '--out', file, '--ledger', db])).code, 0);
    const exported = (await readFile(file, 'utf8')).trim().split('\n').sort();
    assert.deepEqual(exported, (await readFile(EXAMPLES, 'utf8')).trim().split('\n').sort(), 'rows exactly as imported');
    const url = `${PG_URL}?schema=${schema}`;
    const imported = await redline(['ledger', 'import', file, '--ledger', url]);
    assert.equal(imported.code, 0, imported.stderr);
    assert.match(imported.stdout, /imported 4 run\(s\)/);
    assert.equal((await redline(['ledger', 'verify', '--ledger', url])).code, 0);
    const again = await redline(['ledger', 'export', '--format', 'jsonl', '--ledger', url]);
    assert.deepEqual(again.stdout.trim().split('\n').sort(), exported);
    const twice = await redline(['ledger', 'import', file, '--ledger', url]);
    assert.equal(twice.code, 2);
    assert.match(twice.stderr, /already in this ledger/);
  });

  it('runs on PostgreSQL with --ledger postgres://…', async () => {
    const url = `${PG_URL}?schema=${schema}`;
    const run = await redline(['run', path.join(ROOT, 'examples/group-by-first-letter/mission.yaml'), '--json', '--ledger', url]);
    assert.equal(run.code, 0, run.stderr);
    const show = await redline(['ledger', 'show', runIdOf(run.stdout), '--ledger', url]);
    assert.match(show.stdout, /sealed complete \/ verified \/ demand_passed after 2 attempt/);
  });

  it('admits a complete run and refuses one that did not complete', async () => {
    const { dir, db } = await examplesLedger();
    const target = path.join(dir, 'checkout');
    await cp(path.join(ROOT, 'examples/fizzbuzz/workspace'), target, { recursive: true });
    const admitted = await redline(['admit', RUN.fizzbuzz, '--to', target, '--ledger', db]);
    assert.equal(admitted.code, 0, admitted.stderr);
    const recorded = JSON.parse(await readFile(path.join(ROOT, 'examples/fizzbuzz/attempts.json'), 'utf8')) as {
      files: Record<string, string>;
    }[];
    assert.equal(await readFile(path.join(target, 'src/fizzbuzz.js'), 'utf8'), recorded.at(-1)?.files['src/fizzbuzz.js']);

    const refused = await redline(['admit', RUN.budgetCutoff, '--to', target, '--ledger', db]);
    assert.equal(refused.code, 2);
    assert.match(refused.stderr, /ended failed_with_evidence \(budget_attempts\); only a complete run can be admitted/);
  });

  it('replays stop policies over recorded runs', async () => {
    const { dir, db } = await examplesLedger();
    const policy = path.join(dir, 'policies.yaml');
    await writeFile(policy, 'policies:\n  - name: patient\n    guards: []\n  - name: one-strike\n    guards: [{ humanGate: { n: 1 } }]\n');
    const replay = await redline(['replay', '--policy', policy, '--json', '--ledger', db]);
    assert.equal(replay.code, 0, replay.stderr);
    const [patient, oneStrike] = replay.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, number>);
    // Recorded: is-even 2, fizzbuzz 3, group-by 2 (all complete), budget-cutoff 3 (failed).
    assert.deepEqual(
      [patient?.runs, patient?.recordedAttempts, patient?.attempts, patient?.stoppedSame, patient?.reached, patient?.recordedReached],
      [4, 10, 10, 4, 3, 3],
    );
    // Stopping at the first failing attempt stops every run at attempt 1, where none had passed yet.
    assert.deepEqual([oneStrike?.attempts, oneStrike?.stoppedEarlier, oneStrike?.reached], [4, 4, 0]);
    const bad = path.join(dir, 'bad.yaml');
    await writeFile(bad, 'name: x\nguards: [{ confirm: { k: 0, bar: 0.8 } }]\n');
    const refused = await redline(['replay', '--policy', bad, '--ledger', db]);
    assert.equal(refused.code, 2);
    assert.match(refused.stderr, /Invalid policy file .*bad\.yaml/);
    assert.match(refused.stderr, /guards\[0\]/);
    // A wrong key is named where it is, in either shape of the file, not as a document of neither shape.
    await writeFile(bad, 'name: x\nguard: []\n');
    assert.match((await redline(['replay', '--policy', bad, '--ledger', db])).stderr, /\(root\): .*guard/);
    await writeFile(bad, 'policies:\n  - name: a\n    guards: []\n  - name: b\n    guards: [{ humanGate: { m: 1 } }]\n');
    assert.match((await redline(['replay', '--policy', bad, '--ledger', db])).stderr, /policies\[1\]\.guards\[0\]/);
  });

  it('recovers a run whose process died: resumed when its mission is available', async () => {
    const dir = await tempWorkspace({});
    const db = path.join(dir, 'l.db');
    const script = path.join(dir, 'die.mjs');
    // A process that starts the is-even mission (two attempts) and is killed by SIGKILL right after its first attempt is recorded.
    await writeFile(
      script,
      `import { SqliteLedger } from ${JSON.stringify(path.join(ROOT, 'dist/ledger/sqlite/sqlite-ledger.js'))};
import { loadMission } from ${JSON.stringify(path.join(ROOT, 'dist/mission/load.js'))};
import { runMission } from ${JSON.stringify(path.join(ROOT, 'dist/loop/run-mission.js'))};
const ledger = await SqliteLedger.open({ database: ${JSON.stringify(db)} });
await runMission({ mission: await loadMission(${JSON.stringify(path.join(ROOT, 'examples/is-even/mission.yaml'))}), ledger, onRecord: (record) => { if (record.type === 'attempt') process.kill(process.pid, 'SIGKILL'); } });
`,
    );
    const killed = spawnSync(process.execPath, [script], { encoding: 'utf8' });
    assert.equal(killed.signal, 'SIGKILL');
    const recover = await redline(['ledger', 'recover', '--json', '--ledger', db]);
    assert.equal(recover.code, 0, recover.stderr);
    const [recovery] = recover.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { action: string; detail: string });
    assert.deepEqual(recovery, { ...recovery, action: 'resumed', detail: 'complete / demand_passed' });
    assert.equal((await redline(['ledger', 'verify', '--ledger', db])).code, 0);
  });
});

describe('redline ledger with a record that does not parse', () => {
  it('verify names the run and the record’s field as its problem, and show tells the record apart', async () => {
    const { db } = await examplesLedger();
    const ledger = await SqliteLedger.open({ database: db });
    try {
      // Chained and stored as written, but not in the shape of an attempt: a summary's signature that is a number.
      await appendAll(ledger, [
        { runId: 'odd', seq: 0, type: 'run.started', at: 1, data: { mission: { id: 'm', taskType: 't' } } },
        { runId: 'odd', seq: 1, type: 'attempt', at: 2, data: { attempt: 1, summary: { signature: 5 } } },
      ]);
    } finally {
      await ledger.close();
    }
    const verify = await redline(['ledger', 'verify', '--ledger', db]);
    assert.equal(verify.code, 1, verify.stderr);
    assert.match(verify.stdout + verify.stderr, /BROKEN run odd: record 1 \(attempt\): data\.summary\.attempt: /);
    const show = await redline(['ledger', 'show', 'odd', '--ledger', db]);
    assert.equal(show.code, 0, show.stderr);
    assert.match(show.stdout, /run odd: run record 1 \(attempt\) does not parse: data\.summary\.attempt: /);
  });
});
