import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { commandsHoldSecrets, holdsSecrets, redactArgv, redactCommand, redactCommands } from '../../src/core/redact-command.js';
import { shellCommands } from '../../src/core/shell-words.js';

describe('redactCommand', () => {
  it('redacts secret-named assignments wherever they stand, quoted or not, and leaves the rest as written', () => {
    const cases: [string, string][] = [
      ['OPENAI_API_KEY=sk-abc codex exec "fix it"', 'OPENAI_API_KEY=*** codex exec "fix it"'],
      ['A=1 OPENAI_API_KEY=sk-abc GH_TOKEN=ghp_1 codex', 'A=1 OPENAI_API_KEY=*** GH_TOKEN=*** codex'],
      ["OPENAI_API_KEY='sk abc' codex", "OPENAI_API_KEY='***' codex"],
      ['OPENAI_API_KEY="sk-\\"abc" codex', 'OPENAI_API_KEY="***" codex'],
      ['OPENAI_API_KEY=sk\\ abc codex', 'OPENAI_API_KEY=*** codex'],
      ['env OPENAI_API_KEY=sk-abc codex', 'env OPENAI_API_KEY=*** codex'],
      ['env -i -u HOME DB_PASSWORD=hunter2 psql', 'env -i -u HOME DB_PASSWORD=*** psql'],
      ['export ANTHROPIC_API_KEY=sk-ant-1; claude -p x', 'export ANTHROPIC_API_KEY=***; claude -p x'],
      ['true && aws_secret_access_key=abc aws s3 ls | cat', 'true && aws_secret_access_key=*** aws s3 ls | cat'],
      ['docker run -e OPENAI_API_KEY=sk-abc img', 'docker run -e OPENAI_API_KEY=*** img'],
      ['KEY=sk-1\nTOKEN=t-2 agent', 'KEY=***\nTOKEN=*** agent'],
      ['KEY=$(cat ~/.key) agent', 'KEY=*** agent'],
    ];
    for (const [command, recorded] of cases) assert.equal(redactCommand(command), recorded, command);
  });

  it('reads quoted command lines inside the command: sh -c, bash -lc, env -S, nested', () => {
    assert.equal(
      redactCommand(`sh -c 'OPENAI_API_KEY=sk-abc codex exec --api-key sk-2 "x"'`),
      `sh -c 'OPENAI_API_KEY=*** codex exec --api-key *** "x"'`,
    );
    assert.equal(redactCommand(`bash -lc "GH_TOKEN='ghp x' gh pr list"`), `bash -lc "GH_TOKEN='***' gh pr list"`);
    assert.equal(redactCommand(`env -S 'API_KEY=k1 agent'`), `env -S 'API_KEY=*** agent'`);
    assert.equal(
      redactCommand(`bash -c "sh -c 'env MY_SECRET=s3 run'"`),
      `bash -c "sh -c 'env MY_SECRET=*** run'"`,
      'two levels of quoting',
    );
  });

  it('redacts secret-named long options, headers, bearer tokens and URL passwords', () => {
    assert.equal(redactCommand('codex --api-key sk-3 exec'), 'codex --api-key *** exec');
    assert.equal(redactCommand('codex --api-key=sk-3 exec'), 'codex --api-key=*** exec');
    assert.equal(redactCommand('agent --Auth-Token "t 1"'), 'agent --Auth-Token ***');
    assert.equal(redactCommand(`curl -H 'x-api-key: sk-ant-9' https://api`), `curl -H 'x-api-key: ***' https://api`);
    assert.equal(redactCommand(`curl -H "Authorization: Bearer tok123" x`), `curl -H "Authorization: Bearer ***" x`);
    assert.equal(redactCommand('psql postgres://me:pw@db/x'), 'psql postgres://me:***@db/x');
    // An option that takes no secret, and one whose value is missing, are left alone.
    assert.equal(redactCommand('agent --max-tokens 100 --key-file k.pem'), 'agent --max-tokens 100 --key-file k.pem');
    assert.equal(redactCommand('agent --api-key --model m'), 'agent --api-key --model m');
  });

  it('keeps variable references, empty values and names without a secret word; MONKEY counts as one (by substring, on purpose)', () => {
    for (const command of [
      'OPENAI_API_KEY=$OPENAI_API_KEY codex',
      'OPENAI_API_KEY="${MY_KEY}" codex --api-key "$MY_KEY"',
      'KEY= agent',
      'MODEL=gpt-x PORT=8080 agent --model m',
      `'OPENAI_API_KEY' = x`,
      'echo KEY',
    ])
      assert.equal(redactCommand(command), command, command);
    assert.equal(holdsSecrets('OPENAI_API_KEY=$OPENAI_API_KEY codex'), false);
    assert.equal(redactCommand('MONKEY=1 TOKENIZERS_PARALLELISM=false x'), 'MONKEY=*** TOKENIZERS_PARALLELISM=*** x');
  });

  it('survives hostile spellings: unterminated quotes, stray backslashes, comments, redirections', () => {
    assert.equal(redactCommand(`KEY='sk-unterminated`), `KEY='***`);
    assert.equal(redactCommand('KEY="sk-open'), 'KEY="***');
    assert.equal(redactCommand('agent # KEY=sk-in-a-comment'), 'agent # KEY=sk-in-a-comment');
    assert.equal(redactCommand('KEY=sk >out 2>&1 agent'), 'KEY=*** >out 2>&1 agent');
    assert.equal(redactCommand('agent \\'), 'agent \\');
    assert.equal(redactCommand(''), '');
  });

  it('is idempotent: a recorded command is recorded as it is, and still counts as holding a secret', () => {
    const recorded = redactCommand(`sh -c 'OPENAI_API_KEY="sk x" codex --api-key=k'`);
    assert.equal(redactCommand(recorded), recorded);
    assert.equal(holdsSecrets(recorded), true);
  });

  it('never keeps a key, whatever the spelling around it', () => {
    const spellings = [
      (key: string) => `OPENAI_API_KEY=${key} codex exec`,
      (key: string) => `env -u X OPENAI_API_KEY='${key}' codex`,
      (key: string) => `sh -c 'OPENAI_API_KEY="${key}" codex'`,
      (key: string) => `bash -lc "export GH_TOKEN=${key}; gh"`,
      (key: string) => `codex --api-key ${key}`,
      (key: string) => `codex --api-key="${key}"`,
      (key: string) => `curl -H "Authorization: Bearer ${key}"`,
    ];
    fc.assert(
      fc.property(fc.stringMatching(/^sk-[A-Za-z0-9_-]{8,40}$/), fc.integer({ min: 0, max: spellings.length - 1 }), (key, index) => {
        const recorded = redactCommand((spellings[index] as (key: string) => string)(key));
        assert.ok(!recorded.includes(key), recorded);
      }),
    );
  });

  it('never throws, and redacting twice is redacting once, on any text', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: fc.constantFrom('a', 'K', 'E', 'Y', '=', ' ', "'", '"', '\\', '$', '(', ')', '{', '}', '`', ';', '-', '\n') }),
        (text) => {
          const once = redactCommand(text);
          assert.equal(redactCommand(once), once);
        },
      ),
    );
  });
});

describe('redactArgv and redactCommands', () => {
  it('redacts an argv array argument by argument, keeping its shape', () => {
    assert.deepEqual(redactArgv(['env', 'OPENAI_API_KEY=sk', 'codex', '--api-key', 'sk-x', 'sh', '-c', 'GH_TOKEN=abc gh']), [
      'env',
      'OPENAI_API_KEY=***',
      'codex',
      '--api-key',
      '***',
      'sh',
      '-c',
      'GH_TOKEN=***',
    ]);
    assert.equal(holdsSecrets(['codex', 'exec']), false);
  });

  it('redacts every command of a mission, and returns the mission itself when none holds a secret', () => {
    const mission = {
      id: 'm',
      proposer: { kind: 'agent', command: 'OPENAI_API_KEY=sk-1 codex' },
      checks: [
        { name: 'a', command: ['env', 'TOKEN=t', 'node', 'x.js'] },
        { name: 'b', command: 'npm test' },
      ],
      judge: { kind: 'command', command: 'judge --api-key k' },
    };
    const recorded = redactCommands(mission);
    assert.deepEqual(recorded, {
      id: 'm',
      proposer: { kind: 'agent', command: 'OPENAI_API_KEY=*** codex' },
      checks: [
        { name: 'a', command: ['env', 'TOKEN=***', 'node', 'x.js'] },
        { name: 'b', command: 'npm test' },
      ],
      judge: { kind: 'command', command: 'judge --api-key ***' },
    });
    assert.equal(recorded.checks[1], mission.checks[1], 'what holds no secret is kept as it is');
    assert.equal(commandsHoldSecrets(mission), true);
    assert.equal(commandsHoldSecrets(recorded), true);
    const plain = { id: 'm', checks: [{ name: 'b', command: 'npm test' }] };
    assert.equal(redactCommands(plain), plain);
    assert.equal(commandsHoldSecrets(plain), false);
  });
});

describe('shellCommands', () => {
  it('splits a command line into simple commands of unquoted words, lenient with what it cannot close', () => {
    const values = (line: string) => shellCommands(line).map((words) => words.map((word) => word.value));
    // A redirection only ends a word: `2>&1` leaves the words 2 and 1, harmless to what is read here.
    assert.deepEqual(values(`A=1 codex "fix it" && echo 'done'; x 2>&1 | y`), [
      ['A=1', 'codex', 'fix it'],
      ['echo', 'done'],
      ['x', '2', '1'],
      ['y'],
    ]);
    assert.deepEqual(values('a $(b "c d") `e f` ${g}'), [['a', '$(b "c d")', '`e f`', '${g}']]);
    assert.deepEqual(values(`a 'b`), [['a', 'b']]);
  });
});
