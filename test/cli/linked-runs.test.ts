import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import pg from 'pg';
import { ANSWER_AGENT, gatedMission, runIdOf } from '../helpers/gated-mission.js';
import { redline } from './redline.js';

const PG_URL = 'postgres://postgres@127.0.0.1:5432/test';
const ANSWER = ANSWER_AGENT;

/** Where each backend's ledger of a test lives. */
const schemas: string[] = [];
const ledgers: Record<string, (dir: string) => string> = {
  sqlite: (dir) => path.join(dir, 'ledger.db'),
  postgres: () => {
    const schema = `redline_links_cli_${process.pid}_${randomBytes(3).toString('hex')}`;
    schemas.push(schema);
    return `${PG_URL}?schema=${schema}`;
  },
};

after(async () => {
  const client = new pg.Client({ connectionString: PG_URL });
  await client.connect();
  for (const schema of schemas) await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  await client.end();
});

for (const [backend, ledgerAt] of Object.entries(ledgers)) {
  describe(`redline run --resolves, ledger show --lineage (${backend} ledger)`, () => {
    it('a linked run after a human-gate block: the link, the note, show both ways, the lineage, verify', async () => {
      const { dir, file, wrong } = await gatedMission();
      const ledger = ledgerAt(dir);
      const blocked = await redline(['run', file, '--proposer', wrong, '--json', '--ledger', ledger]);
      assert.equal(blocked.code, 1, blocked.stderr);
      assert.deepEqual([JSON.parse(blocked.stdout).outcome, JSON.parse(blocked.stdout).stopReason], ['blocked', 'human_gate']);
      const old = runIdOf(blocked.stdout);

      const linked = await redline([
        'run',
        file,
        '--proposer',
        `sh ${ANSWER}`,
        '--resolves',
        old,
        '--note',
        'the answer agent reads the hint',
        '--ledger',
        ledger,
      ]);
      assert.equal(linked.code, 0, linked.stderr);
      assert.match(linked.stderr, new RegExp(`resolves run ${old} \\(blocked / human_gate\\): a linked run`));
      const linkedId = /redline ledger show (\S+)/.exec(linked.stdout)?.[1] as string;

      const showNew = await redline(['ledger', 'show', linkedId, '--ledger', ledger]);
      assert.equal(showNew.code, 0, showNew.stderr);
      assert.match(showNew.stdout, new RegExp(`resolves run ${old} \\(blocked / human_gate\\): the answer agent reads the hint`));
      assert.match(showNew.stdout, /plan [0-9a-f]{12}… \(mission \+ command proposer sh .*answer-agent\.sh\)/);
      const showOld = await redline(['ledger', 'show', old, '--ledger', ledger]);
      assert.match(showOld.stdout, new RegExp(`resolved by run ${linkedId} — complete / demand_passed`));
      assert.doesNotMatch(showOld.stdout, /resolves run/);

      const chain = await redline(['ledger', 'show', '--lineage', linkedId, '--ledger', ledger]);
      assert.equal(chain.code, 0, chain.stderr);
      const lines = chain.stdout.trim().split('\n');
      assert.match(lines[0] as string, new RegExp(`^run ${old} — blocked / human_gate`));
      assert.match(
        lines[1] as string,
        new RegExp(`^  └ run ${linkedId} ◀ — complete / demand_passed.* — the answer agent reads the hint$`),
      );
      assert.equal(lines[2], `2 run(s) in the lineage of run ${linkedId}, mission gated`);
      const json = await redline(['ledger', 'show', old, '--lineage', '--json', '--ledger', ledger]);
      const entries = json.stdout
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as Record<string, unknown>);
      assert.deepEqual(
        entries.map((entry) => [entry.runId, entry.depth, entry.resolves, entry.outcome, entry.stopReason, entry.note, entry.missionId]),
        [
          [old, 0, undefined, 'blocked', 'human_gate', undefined, 'gated'],
          [linkedId, 1, old, 'complete', 'demand_passed', 'the answer agent reads the hint', 'gated'],
        ],
      );
      assert.notEqual(entries[0]?.planHash, entries[1]?.planHash);

      const verify = await redline(['ledger', 'verify', '--ledger', ledger]);
      assert.equal(verify.code, 0, verify.stdout + verify.stderr);
      assert.match(verify.stdout, /2 of 2 runs verify/);
    });

    it('refuses a same-plan rerun (exit 2, why and how), accepts a changed-plan linked run, records --force-same-plan', async () => {
      const { dir, file, wrong } = await gatedMission();
      const ledger = ledgerAt(dir);
      const old = runIdOf((await redline(['run', file, '--proposer', wrong, '--json', '--ledger', ledger])).stdout);

      const again = await redline(['run', file, '--proposer', wrong, '--json', '--ledger', ledger]);
      assert.equal(again.code, 2);
      assert.equal(again.stdout, '');
      assert.match(
        again.stderr,
        new RegExp(`refused to rerun the same plan on mission gated: run ${old} ran plan [0-9a-f]{12} .* sealed blocked / human_gate`),
      );
      assert.match(again.stderr, new RegExp(`--resolves ${old} with a changed plan`));
      assert.match(again.stderr, /--force-same-plan/);
      const sameLinked = await redline(['run', file, '--proposer', wrong, '--resolves', old, '--ledger', ledger]);
      assert.equal(sameLinked.code, 2);
      assert.match(sameLinked.stderr, /refused to rerun the same plan/);

      const forced = await redline(['run', file, '--proposer', wrong, '--force-same-plan', '--json', '--ledger', ledger]);
      assert.equal(forced.code, 1, forced.stderr);
      assert.match(forced.stderr, new RegExp(`same plan as run ${old} \\(human_gate\\), run anyway with --force-same-plan`));
      const forcedStory = await redline(['ledger', 'show', runIdOf(forced.stdout), '--json', '--ledger', ledger]);
      assert.deepEqual(JSON.parse(forcedStory.stdout.split('\n')[0] as string).data.samePlanForced, {
        runId: old,
        stopReason: 'human_gate',
      });

      const changed = await redline(['run', file, '--proposer', `sh ${ANSWER}`, '--resolves', old, '--json', '--ledger', ledger]);
      assert.equal(changed.code, 0, changed.stderr);
      assert.equal(JSON.parse(changed.stdout).outcome, 'complete');
    });

    it('refuses a link to a run it cannot resolve, and --note without --resolves (exit 2)', async () => {
      const { dir, file, wrong } = await gatedMission();
      const ledger = ledgerAt(dir);
      const unknown = await redline(['run', file, '--proposer', wrong, '--resolves', 'nobody', '--ledger', ledger]);
      assert.equal(unknown.code, 2);
      assert.match(unknown.stderr, /cannot resolve run nobody: it is not in this ledger/);
      const complete = runIdOf((await redline(['run', file, '--proposer', `sh ${ANSWER}`, '--json', '--ledger', ledger])).stdout);
      const done = await redline(['run', file, '--proposer', wrong, '--resolves', complete, '--ledger', ledger]);
      assert.equal(done.code, 2);
      assert.match(done.stderr, /sealed complete, and only a blocked or failed_with_evidence run is resolved by a linked run/);
      const note = await redline(['run', file, '--proposer', wrong, '--note', 'why', '--ledger', ledger]);
      assert.equal(note.code, 2);
      assert.match(note.stderr, /Expected resolves with note/);
    });
  });
}

describe('ledger verify checks links', () => {
  it('fails a linked run imported without the run it resolves, naming the missing run', async () => {
    const { dir, file, wrong } = await gatedMission();
    const ledger = path.join(dir, 'ledger.db');
    const old = runIdOf((await redline(['run', file, '--proposer', wrong, '--json', '--ledger', ledger])).stdout);
    const linked = runIdOf(
      (await redline(['run', file, '--proposer', `sh ${ANSWER}`, '--resolves', old, '--json', '--ledger', ledger])).stdout,
    );
    const exported = path.join(dir, 'linked.jsonl');
    assert.equal(
      (await redline(['ledger', 'export', '--format', 'jsonl', '--run', linked, '--out', exported, '--ledger', ledger])).code,
      0,
    );
    const alone = path.join(dir, 'alone.db');
    assert.equal((await redline(['ledger', 'import', exported, '--ledger', alone])).code, 0);
    const verify = await redline(['ledger', 'verify', '--ledger', alone]);
    assert.equal(verify.code, 1);
    assert.match(verify.stdout, new RegExp(`BROKEN run ${linked}: link — it resolves run ${old}, which is not in this ledger`));
    const json = await redline(['ledger', 'verify', '--json', '--ledger', alone]);
    assert.match(JSON.parse(json.stdout.split('\n')[0] as string).linkProblem, /which is not in this ledger/);
  });
});
