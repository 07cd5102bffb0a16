import assert from 'node:assert/strict';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { MemoryLedger } from '../../src/ledger/memory/memory-ledger.js';
import { runMission } from '../../src/loop/run-mission.js';
import { defineMission } from '../../src/mission/mission.js';
import { agentProposer } from '../../src/proposers/agent-proposer.js';
import { evidencePage } from '../../src/review-app/evidence-page.js';
import { tempWorkspace } from '../helpers/workspace.js';

const dirs: string[] = [];
after(() => Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true }))));

describe('the evidence page', () => {
  it("shows each attempt's proposer account, its transcript escaped and its control and bidi characters spelled out", async () => {
    const root = await tempWorkspace({ 'ws/a.txt': 'a\n' });
    dirs.push(root);
    const ledger = new MemoryLedger();
    // An agent that changes nothing, whose stderr and transcript hold markup, a clear-screen sequence and U+202E:
    // its finding quotes the stderr, its account holds both.
    const agent = `printf 'denied \\033[2J <b>here</b>\\n' >&2; printf 'clear \\033[2J then \\342\\200\\256 reversed\\n<script>alert(1)</script>\\n' > "$REDLINE_TRANSCRIPT"`;
    const result = await runMission({
      mission: defineMission({
        id: 'evidence',
        goal: 'g',
        workspace: path.join(root, 'ws'),
        budgets: { maxAttempts: 1 },
        checks: [{ name: 't', kind: 'command', tier: 'demand', command: 'grep -q b a.txt' }],
      }),
      proposer: agentProposer({ command: agent }),
      ledger,
    });
    const [run] = await ledger.runs({ runId: result.runId });
    const page = evidencePage({
      runId: result.runId,
      run,
      records: await ledger.records(result.runId),
      verification: undefined,
    }).toString();
    assert.match(page, /the agent: exit 0, \d+ ms/);
    assert.match(page, /the agent changed nothing \(exit 0, \d+ ms\); its last stderr: denied \\x1b\[2J &lt;b&gt;here&lt;\/b&gt;/);
    assert.match(page, /<pre class="text" data-stream="stderr">denied \\x1b\[2J &lt;b&gt;here&lt;\/b&gt;\n<\/pre>/);
    assert.match(
      page,
      /<pre class="text" data-stream="transcript">clear \\x1b\[2J then \\u\{202e\} reversed\n&lt;script&gt;alert\(1\)&lt;\/script&gt;\n<\/pre>/,
    );
    for (const raw of ['\u001b', '\u202e', '<script>', '<b>'])
      assert.ok(!page.includes(raw), `no raw ${JSON.stringify(raw)} of the agent reaches the page`);
  });
});
