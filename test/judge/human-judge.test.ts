import assert from 'node:assert/strict';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { finding, type Check } from '../../src/core/check.js';
import { MissionError } from '../../src/errors/mission-error.js';
import { humanJudge } from '../../src/judge/human-judge.js';
import { ledgerRunOf } from '../../src/judge/request-key.js';
import type { LedgerRecord } from '../../src/ledger/ledger.js';
import { SqliteLedger } from '../../src/ledger/sqlite/sqlite-ledger.js';
import { runMission, type RunMissionOptions } from '../../src/loop/run-mission.js';
import { defineMission, type Mission } from '../../src/mission/mission.js';
import { functionProposer } from '../../src/proposers/function-proposer.js';
import type { ReviewEntry, ReviewerQueue, ReviewQueue, VerdictInput } from '../../src/review/review-queue.js';
import { SqliteReviewQueue } from '../../src/review/sqlite/sqlite-review-queue.js';
import { verifyLedger } from '../../src/ledger/verify.js';
import { backends, type ReviewBackend } from '../review/backends.js';
import { dataOf } from '../helpers/records.js';
import { tempDir } from '../helpers/workspace.js';

/** A demand red line that holds once the candidate's value is 1 (never on the baseline, which has no value). */
const valueIsOne: Check = {
  name: 'value-is-one',
  stage: 'fast',
  tier: 'demand',
  required: true,
  run: async ({ candidate }) =>
    candidate.value === 1
      ? [finding(valueIsOne, 'pass', [], 'value is 1')]
      : [finding(valueIsOne, 'fail', ['value.wrong'], `value is ${String(candidate.value)}`)],
};

const mission = (fields: Record<string, unknown> = {}): Mission =>
  defineMission({ id: 'human-judged', goal: 'Set the value to 1', budgets: { maxAttempts: 4 }, ...fields });

let dir: string;
before(async () => {
  dir = await tempDir('redline-human-judge-');
});
after(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** A ledger and the run's queue on one SQLite file, and a reviewer's own connection to the queue, as another process would have. */
async function storage(name: string): Promise<{ ledger: SqliteLedger; queue: ReviewQueue; reviewer: ReviewQueue; close(): Promise<void> }> {
  const database = path.join(dir, `${name}.db`);
  const ledger = await SqliteLedger.open({ database });
  const queue = await SqliteReviewQueue.open({ database });
  const reviewer = await SqliteReviewQueue.open({ database });
  return {
    ledger,
    queue,
    reviewer,
    async close() {
      await Promise.all([ledger.close(), queue.close(), reviewer.close()]);
    },
  };
}

/** Waits, through the reviewer's connection, for the request for `attempt` and gives it `verdict`. */
async function review(reviewer: ReviewQueue, attempt: number, verdict: Omit<VerdictInput, 'reviewer'>): Promise<ReviewEntry> {
  for (let tries = 0; tries < 500; tries += 1) {
    const entry = (await reviewer.list()).find((item) => item.item.runId.endsWith(`#attempt-${attempt}`));
    if (entry !== undefined) {
      await reviewer.verdict(entry.item.id, { reviewer: 'alice', ...verdict });
      return entry;
    }
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`no request for attempt ${attempt} came to the queue`);
}

/** Every member of the reviewer's view of the queue; the compiler holds the list to the interface. */
const REVIEWER_MEMBERS: Readonly<Record<keyof ReviewerQueue, true>> = {
  config: true,
  enqueue: true,
  claim: true,
  verdict: true,
  releaseClaims: true,
  get: true,
  list: true,
  depth: true,
  mode: true,
  currentLimit: true,
  stats: true,
  recordRun: true,
  recordAlertDelivery: true,
};

/** The queue seen through its reviewer view alone: asking it for anything else (rules, reviewers, logs) throws. */
function reviewerView(queue: ReviewQueue): ReviewerQueue {
  return new Proxy(queue, {
    get(target, key) {
      if (typeof key === 'string' && !Object.hasOwn(REVIEWER_MEMBERS, key)) throw new Error(`the reviewer view has no ${key}`);
      const value: unknown = Reflect.get(target, key, target);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}

const decisions = (records: readonly LedgerRecord[]) =>
  records.filter((record) => record.type === 'decision').map((record) => record.data.decision as Record<string, unknown>);

/** A clock that moves only when the judge waits: a long timeout passes at once. */
function fakeTime(): { now: () => number; sleep: (ms: number) => Promise<void> } {
  let offset = 0;
  return {
    now: () => Date.now() + offset,
    sleep: async (ms) => {
      offset += ms;
    },
  };
}

describe('humanJudge', () => {
  it('a human judge approving through the queue: the run waits, a reviewer approves the brief, the run seals complete as the human decided', async () => {
    const store = await storage('approve');
    try {
      let runId = '';
      const run = runMission({
        mission: mission(),
        proposer: functionProposer(() => ({ value: 1 })),
        checks: [valueIsOne],
        judge: humanJudge({ queue: store.queue, timeoutMs: 60_000, pollIntervalMs: 10 }),
        ledger: store.ledger,
        onRecord: (record) => (runId = record.runId),
      });
      const entry = await review(store.reviewer, 1, { decision: 'approve', label: 'unclear', comment: 'looks right' });
      const result = await run;

      assert.equal(entry.item.runId, `${runId}#attempt-1`);
      assert.equal(ledgerRunOf(entry.item.runId), runId);
      assert.equal(entry.item.task, 'Set the value to 1');
      assert.deepEqual(entry.item.finalOutput, { files: {}, value: 1 });
      assert.deepEqual(entry.item.tags, ['judge']);
      assert.deepEqual(
        [result.outcome, result.verification, result.stopReason, result.attempts],
        ['complete', 'verified', 'human_approved', 1],
      );
      assert.match(result.detail, new RegExp(`review item ${entry.item.id} approved by alice \\(unclear\\): looks right`));
      const records = await store.ledger.records(runId);
      assert.equal(dataOf(records, 'run.started').judge, 'human');
      // The baseline is the routing table's (nothing to accept yet); attempt 1 is the human's.
      assert.deepEqual(
        decisions(records).map((decision) => [decision.transition, decision.reason]),
        [
          ['retry', 'baseline_not_passing'],
          ['accept', 'human_approved'],
        ],
      );
      assert.equal((await store.reviewer.get(entry.item.id))?.status, 'decided');
    } finally {
      await store.close();
    }
  });

  it('blocks with human_timeout when no verdict comes within the timeout, leaving the request in the queue', async () => {
    const store = await storage('timeout');
    try {
      const time = fakeTime();
      const result = await runMission({
        mission: mission(),
        proposer: functionProposer(() => ({ value: 1 })),
        checks: [valueIsOne],
        judge: humanJudge({ queue: store.queue, timeoutMs: 3_600_000, pollIntervalMs: 60_000, _internal: time }),
        ledger: store.ledger,
      });
      assert.deepEqual([result.outcome, result.verification, result.stopReason], ['blocked', 'unverified', 'human_timeout']);
      const [waiting] = await store.reviewer.list();
      assert.equal(waiting?.item.runId, `${result.runId}#attempt-1`);
      assert.equal(result.detail, `no verdict on review item ${waiting?.item.id} within 3600000 ms`);
      assert.ok(result.brief !== undefined, 'a blocked run carries its brief');
    } finally {
      await store.close();
    }
  });

  it('retries on a rejection (each attempt is its own request), then accepts the approved one', async () => {
    const store = await storage('reject-retry');
    try {
      const run = runMission({
        mission: mission(),
        // The same candidate again: no stuck-loop guard, so the human alone decides.
        proposer: functionProposer(() => ({ value: 1 })),
        checks: [valueIsOne],
        guards: [],
        judge: humanJudge({ queue: store.queue, timeoutMs: 60_000, pollIntervalMs: 10 }),
        ledger: store.ledger,
      });
      await review(store.reviewer, 1, { decision: 'reject', label: 'logic_error', comment: 'not what I meant' });
      await review(store.reviewer, 2, { decision: 'approve', label: 'unclear' });
      const result = await run;
      assert.deepEqual([result.outcome, result.stopReason, result.attempts], ['complete', 'human_approved', 2]);
      assert.deepEqual(
        decisions(await store.ledger.records(result.runId)).map((decision) => [decision.transition, decision.reason]),
        [
          ['retry', 'baseline_not_passing'],
          ['retry', 'human_rejected'],
          ['accept', 'human_approved'],
        ],
      );
    } finally {
      await store.close();
    }
  });

  it('fails on a rejection when onReject is fail', async () => {
    const store = await storage('reject-fail');
    try {
      const run = runMission({
        mission: mission(),
        proposer: functionProposer(() => ({ value: 1 })),
        checks: [valueIsOne],
        judge: humanJudge({ queue: store.queue, timeoutMs: 60_000, pollIntervalMs: 10, onReject: 'fail' }),
        ledger: store.ledger,
      });
      const entry = await review(store.reviewer, 1, { decision: 'reject', label: 'hallucination' });
      const result = await run;
      assert.deepEqual([result.outcome, result.stopReason], ['failed_with_evidence', 'human_rejected']);
      assert.equal(result.detail, `review item ${entry.item.id} rejected by alice (hallucination)`);
    } finally {
      await store.close();
    }
  });

  it('asks no one while the candidate cannot be accepted: failing checks go by the routing table', async () => {
    const store = await storage('not-acceptable');
    try {
      const result = await runMission({
        mission: mission({ budgets: { maxAttempts: 2 } }),
        proposer: functionProposer(() => ({ value: 2 })),
        checks: [valueIsOne],
        judge: humanJudge({ queue: store.queue, timeoutMs: 60_000, pollIntervalMs: 10 }),
        ledger: store.ledger,
      });
      assert.deepEqual([result.outcome, result.stopReason], ['failed_with_evidence', 'budget_attempts']);
      assert.equal(await store.reviewer.depth(), 0);
    } finally {
      await store.close();
    }
  });

  it('finds its own request again when asked twice for the same attempt (a resumed run), verdict included', async () => {
    const store = await storage('resume');
    try {
      const judge = humanJudge({ queue: store.queue, timeoutMs: 60_000, pollIntervalMs: 10 });
      const first = runMission({
        mission: mission(),
        proposer: functionProposer(() => ({ value: 1 })),
        checks: [valueIsOne],
        judge,
        ledger: store.ledger,
      });
      const entry = await review(store.reviewer, 1, { decision: 'approve', label: 'unclear' });
      const sealed = await first;
      const evidence = {
        mission: mission(),
        attempt: 1,
        candidate: sealed.candidate,
        findings: sealed.findings,
        acceptance: { acceptable: true, hasDemand: true, problems: [] },
      };
      const again = await judge.decide(evidence, { signal: new AbortController().signal, runId: sealed.runId });
      assert.deepEqual(again, {
        transition: 'accept',
        reason: 'human_approved',
        cites: ['value-is-one'],
        detail: `review item ${entry.item.id} approved by alice (unclear)`,
      });
      assert.equal((await store.reviewer.stats()).verdicts.total, 1);
    } finally {
      await store.close();
    }
  });

  it('stops waiting when the run is stopped', async () => {
    const store = await storage('abort');
    try {
      const controller = new AbortController();
      const run = runMission({
        mission: mission(),
        proposer: functionProposer(() => ({ value: 1 })),
        checks: [valueIsOne],
        judge: humanJudge({ queue: store.queue, timeoutMs: 60_000, pollIntervalMs: 10 }),
        ledger: store.ledger,
        signal: controller.signal,
      });
      while ((await store.reviewer.depth()) === 0) await new Promise((resolve) => setTimeout(resolve, 10));
      controller.abort();
      const result = await run;
      assert.deepEqual([result.outcome, result.stopReason], ['failed_with_evidence', 'aborted']);
    } finally {
      await store.close();
    }
  });

  for (const [action, transition, outcome] of [
    ['return', 'retry', 'complete'],
    ['reject', 'fail', 'failed_with_evidence'],
  ] as const) {
    it(`needs only the reviewer's view of the queue, with its handoff: a filter rule that catches a request with ${action} makes the judge ${transition}`, async () => {
      const store = await storage(`rule-${action}`);
      try {
        await store.reviewer.addFilterRule({ label: 'logic_error', match: { pattern: 'to accept attempt 1 of run' }, action, by: 'alice' });
        const view = reviewerView(store.queue);
        const run = runMission({
          mission: mission(),
          proposer: functionProposer(() => ({ value: 1 })),
          checks: [valueIsOne],
          guards: [],
          judge: humanJudge({ queue: view, timeoutMs: 60_000, pollIntervalMs: 10 }),
          ledger: store.ledger,
          handoff: { queue: view, sampleRate: 0 },
        });
        if (action === 'return') await review(store.reviewer, 2, { decision: 'approve', label: 'unclear' });
        const result = await run;
        assert.deepEqual([result.outcome, result.stopReason], [outcome, action === 'return' ? 'human_approved' : 'human_rejected']);
        assert.deepEqual(
          decisions(await store.ledger.records(result.runId)).map((decision) => [decision.transition, decision.reason]),
          [
            ['retry', 'baseline_not_passing'],
            [transition, 'human_rejected'],
            ...(action === 'return' ? [['accept', 'human_approved']] : []),
          ],
        );
        assert.deepEqual(
          (await store.reviewer.filterRules()).map((rule) => [rule.id, rule.caught]),
          [['r1', 1]],
        );
      } finally {
        await store.close();
      }
    });
  }

  it('refuses bad options with "Expected X, got Y"', () => {
    const queue = {} as ReviewQueue;
    assert.throws(() => humanJudge({ queue, timeoutMs: 1 }), { name: 'TypeError', message: /^Expected a review queue, got object/ });
  });
});

describe('a mission with judge: human', () => {
  const human = (): RunMissionOptions => ({
    mission: mission({ judge: { kind: 'human', timeout: '1m', pollInterval: '10ms' } }),
    proposer: functionProposer(() => ({ value: 1 })),
    checks: [valueIsOne],
  });

  it('is refused with a MissionError before anything is recorded when the run has no review queue', async () => {
    const store = await storage('no-queue');
    try {
      await assert.rejects(runMission({ ...human(), ledger: store.ledger }), (error: unknown) => {
        assert.ok(error instanceof MissionError);
        assert.equal(error.issues[0]?.path, 'judge');
        assert.match(error.message, /a human judge waits for a verdict from the review queue, and this run has none/);
        return true;
      });
      assert.deepEqual(await store.ledger.runs({}), []);
    } finally {
      await store.close();
    }
  });

  it("asks the handoff's queue", async () => {
    const store = await storage('handoff');
    try {
      const run = runMission({ ...human(), ledger: store.ledger, handoff: { queue: store.queue, sampleRate: 0 } });
      await review(store.reviewer, 1, { decision: 'approve', label: 'unclear' });
      const result = await run;
      assert.deepEqual([result.outcome, result.stopReason], ['complete', 'human_approved']);
    } finally {
      await store.close();
    }
  });
});

describe('humanJudge on PostgreSQL', () => {
  it("a reviewer on another connection approves through the queue in the ledger's schema; the run seals complete as the human decided", async () => {
    const opened = await (backends.find((backend) => backend.name === 'postgres') as ReviewBackend).open();
    try {
      const { queue, reopen, openLedger } = opened as Required<typeof opened>;
      const ledger = await openLedger();
      const reviewer = await reopen();
      let runId = '';
      const run = runMission({
        mission: mission(),
        proposer: functionProposer(() => ({ value: 1 })),
        checks: [valueIsOne],
        judge: humanJudge({ queue, timeoutMs: 60_000, pollIntervalMs: 10 }),
        ledger,
        onRecord: (record) => (runId = record.runId),
      });
      const entry = await review(reviewer, 1, { decision: 'approve', label: 'unclear', comment: 'fine' });
      const result = await run;
      assert.equal(ledgerRunOf(entry.item.runId), runId);
      assert.deepEqual([result.outcome, result.verification, result.stopReason], ['complete', 'verified', 'human_approved']);
      assert.deepEqual(
        decisions(await ledger.records(runId)).map((decision) => [decision.transition, decision.reason]),
        [
          ['retry', 'baseline_not_passing'],
          ['accept', 'human_approved'],
        ],
      );
      assert.equal((await reviewer.get(entry.item.id))?.status, 'decided');
      assert.equal((await verifyLedger(ledger)).ok, true);
    } finally {
      await opened.close();
    }
  });
});
