import assert from 'node:assert/strict';

import { after, describe, it } from 'node:test';
import { startOpenAIStub } from '../../src/testing/openai-stub-server.js';
import { redline } from '../cli/redline.js';
import { tempWorkspace } from '../helpers/workspace.js';
import { answerMission, fleetSchema, submitterKey } from './fleet-helpers.js';

// Per-endpoint rate limits reach the whole fleet: set once in PostgreSQL, every worker's model calls wait
// for the same allowance.
const fleet = fleetSchema('redline_rate_limits');
const cliFleet = fleetSchema('redline_limits_cli');
after(() => Promise.all([fleet.drop(), cliFleet.drop()]));

describe('redline limits', () => {
  it('sets, lists, replaces and removes limits, and refuses bad ones by name', async () => {
    const { url } = cliFleet;
    assert.match((await redline(['limits', '--postgres', url])).stdout, /no rate limits/);
    const set = await redline(['limits', 'set', 'https://api.example/v1/', '--postgres', url, '--requests-per-minute', '500', '--json']);
    assert.equal(set.code, 0, set.stderr);
    assert.deepEqual(JSON.parse(set.stdout), {
      endpoint: 'https://api.example/v1',
      model: '*',
      requestsPerMinute: 500,
      tokensPerMinute: null,
      burstSeconds: 60,
    });
    await redline([
      'limits',
      'set',
      'https://api.example/v1',
      '--postgres',
      url,
      '--model',
      'big',
      '--tokens-per-minute',
      '30000',
      '--burst',
      '10',
    ]);
    await redline(['limits', 'set', 'https://api.example/v1', '--postgres', url, '--requests-per-minute', '60']);
    const listed = await redline(['limits', '--postgres', url]);
    assert.match(listed.stdout, /https:\/\/api\.example\/v1\s+\*\s+60\s+-\s+60 requests \(60 s\)/);
    assert.match(listed.stdout, /https:\/\/api\.example\/v1\s+big\s+-\s+30000\s+5000 tokens \(10 s\)/);
    const neither = await redline(['limits', 'set', 'https://api.example/v1', '--postgres', url]);
    assert.equal(neither.code, 2);
    assert.match(neither.stderr, /requests per minute or tokens per minute .* got neither/);
    const zero = await redline(['limits', 'set', 'https://api.example/v1', '--postgres', url, '--requests-per-minute', '0']);
    assert.equal(zero.code, 2);
    assert.match(zero.stderr, /Expected a number above 0, got "0"/);
    assert.equal((await redline(['limits', 'remove', 'https://api.example/v1', '--postgres', url, '--model', 'big'])).code, 0);
    const again = await redline(['limits', 'remove', 'https://api.example/v1', '--postgres', url, '--model', 'big']);
    assert.equal(again.code, 1);
    assert.match(again.stderr, /no limit for https:\/\/api\.example\/v1 \(big\)/);
    assert.equal((await redline(['limits', '--postgres', url, '--json'])).stdout.trim().split('\n').length, 1);
  });
});

describe('workers under a shared rate limit', () => {
  it("space their model calls by the endpoint's limit, and say so", { timeout: 90_000 }, async () => {
    const stub = await startOpenAIStub({
      respond: () => ({
        content: JSON.stringify({ files: { 'src/answer.txt': '42\n' } }),
        usage: { prompt_tokens: 50, completion_tokens: 10 },
      }),
    });
    try {
      // One request a second, one at a time, for the whole fleet.
      const set = await redline(['limits', 'set', stub.baseURL, '--postgres', fleet.url, '--requests-per-minute', '60', '--burst', '1']);
      assert.equal(set.code, 0, set.stderr);
      const dir = await tempWorkspace({});
      const files: string[] = [];
      for (const id of ['m1', 'm2', 'm3', 'm4'])
        files.push(await answerMission(dir, id, { proposer: { kind: 'model', baseURL: stub.baseURL, model: 'stub-model' } }));
      const key = submitterKey(dir);
      assert.equal((await redline(['submit', ...files, '--postgres', fleet.url, ...key.sign])).code, 0);
      // Two workers (as on two machines: separate pools and work directories), two runs each at a time.
      const workers = await Promise.all(
        ['a', 'b'].map((name) =>
          redline([
            'worker',
            '--postgres',
            fleet.url,
            '--concurrency',
            '2',
            '--until-idle',
            '--workdir',
            `${dir}/work-${name}`,
            ...key.trust,
          ]),
        ),
      );
      for (const worker of workers) assert.equal(worker.code, 0, worker.stderr);
      const log = workers.map((worker) => worker.stderr).join('');
      assert.equal((log.match(/ complete · /g) ?? []).length, 4, log);
      assert.match(log, /stub-model at http:\/\/127\.0\.0\.1:\d+\/v1 waits 1 s for the rate limit/);
      // Four calls, one a second: at least 3 s from the first to the last (less the first call's trip, at most 1 s).
      assert.equal(stub.arrivals.length, 4);
      const span = Math.max(...stub.arrivals) - Math.min(...stub.arrivals);
      assert.ok(span >= 2_000, `4 calls arrived within ${span} ms`);
      const waits = [...log.matchAll(/stopped · .*rate_waits (\d+)/g)].reduce((sum, [, count]) => sum + Number(count), 0);
      assert.ok(waits >= 1, `${waits} model calls waited`);
      const status = await redline(['status', '--postgres', fleet.url]);
      assert.match(status.stdout, /rate limits {3}1 \(redline limits --postgres URL\)/);
    } finally {
      await stub.close();
    }
  });
});
