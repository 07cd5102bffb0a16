import assert from 'node:assert/strict';
import os from 'node:os';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { commandIdentity } from '../../src/core/command-identity.js';

const tempDirs = ['/tmp', '/var/tmp', '/private/var/folders/xy/T'];
const identity = (command: string): string => commandIdentity(command, { tempDirs });

describe('commandIdentity', () => {
  it('drops environment assignments: leading ones, those after env, inside sh -c; keeps env options and export', () => {
    const cases: [string, string][] = [
      ['OPENAI_BASE_URL=http://x CODEX_HOME=/home/me/.c codex exec "fix"', 'codex exec "fix"'],
      ['env OPENAI_API_KEY=sk-1 codex exec', 'codex exec'],
      ['/usr/bin/env A=1 codex', 'codex'],
      ['env -i PATH=/bin -u HOME B=2 codex', 'env -i -u HOME codex'],
      ['A=1 codex && B=2 jq . f > g', 'codex && jq . f > g'],
      [`sh -c 'A=1 codex exec'`, `sh -c 'codex exec'`],
      ['if A=1 true; then B=2 codex; fi', 'if true; then codex; fi'],
      ['export A=1; codex', 'export A=1; codex'],
      // Quoted whole, it is no assignment: the shell runs a program named so.
      [`'A=1' codex`, `'A=1' codex`],
    ];
    for (const [command, expected] of cases) assert.equal(identity(command), expected, command);
  });

  it('puts placeholders for loopback ports and temporary paths, and keeps other ports and paths', () => {
    const cases: [string, string][] = [
      ['codex -c base_url=http://127.0.0.1:41237/v1 exec', 'codex -c base_url=http://127.0.0.1:<port>/v1 exec'],
      ['agent --base-url http://localhost:8080 --port 9000', 'agent --base-url http://localhost:<port> --port <port>'],
      [
        'agent --port=9000 --url http://[::1]:7/x http://0.0.0.0:5',
        'agent --port=<port> --url http://[::1]:<port>/x http://0.0.0.0:<port>',
      ],
      ['agent --url https://api.example.com:8443/v1', 'agent --url https://api.example.com:8443/v1'],
      ['node /tmp/redline-Ab12/wrong.mjs', 'node <tmp>/wrong.mjs'],
      ['agent --home=/var/tmp/x1/.codex --cfg "/tmp/y/c.toml"', 'agent --home=<tmp>/.codex --cfg "<tmp>/c.toml"'],
      ['agent --dir /private/var/folders/xy/T/run-9/a', 'agent --dir <tmp>/a'],
      ['agent --dir /home/me/tmp/x /tmpfiles/y', 'agent --dir /home/me/tmp/x /tmpfiles/y'],
      ['agent --home "$HOME/tmp.Zx81Qk9a0B/c"', 'agent --home "$HOME/<tmp>/c"'],
    ];
    for (const [command, expected] of cases) assert.equal(identity(command), expected, command);
  });

  it('records no secret: it is over the redacted command', () => {
    assert.equal(identity('codex --api-key sk-abc exec'), 'codex --api-key *** exec');
    assert.equal(identity(`sh -c 'codex exec --api-key=sk-abc'`), `sh -c 'codex exec --api-key=***'`);
  });

  it('is the same for two runs of a recipe that differ only in port, temporary directory and assignments', () => {
    const run = (port: number, dir: string, key: string): string =>
      `CODEX_HOME=${dir}/home OPENAI_API_KEY=${key} codex exec -c model_providers.local.base_url=http://127.0.0.1:${port}/v1 --cd ${dir}/w "$REDLINE_PROMPT"`;
    assert.equal(identity(run(41237, '/tmp/tmp.AbCdEf1234', 'sk-1')), identity(run(5555, '/tmp/tmp.ZyXwVu9876', 'sk-2')));
    assert.notEqual(identity(run(5555, '/tmp/a', 'k')), identity(run(5555, '/tmp/a', 'k').replace('exec', 'exec --json')));
  });

  it('leaves a command with no assignment, loopback port or temporary path as it is, byte for byte', () => {
    const plain = fc
      .stringMatching(/^[a-z][a-z0-9 ./"'$_{}|&>-]{0,60}$/)
      .filter((text) => !/tmp|[A-Za-z_]=|--port|localhost|127\.|0\.0\.0\.0/.test(text));
    fc.assert(fc.property(plain, (command) => assert.equal(identity(command), command)));
    const recipe = `codex exec --sandbox workspace-write --skip-git-repo-check --json "$REDLINE_PROMPT" \\
  > "$REDLINE_TRANSCRIPT" &&
jq -s "map(.usage // empty)" "$REDLINE_TRANSCRIPT" > "$REDLINE_USAGE_FILE"`;
    assert.equal(identity(recipe), recipe);
  });

  it('takes the system temporary directory by default', () => {
    assert.equal(commandIdentity(`node ${os.tmpdir()}/run-1/agent.mjs`), 'node <tmp>/agent.mjs');
  });
});
