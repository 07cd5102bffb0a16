import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, it } from 'node:test';
import { detectRunners } from '../../src/init/detect-runner.js';
import { formatCheckFor } from '../../src/init/format-check.js';
import { missionText } from '../../src/init/mission-text.js';
import { memoryFiles } from '../../src/init/repo-files.js';
import { scopeFromLayout } from '../../src/init/scope-from-layout.js';
import { loadMission } from '../../src/mission/load.js';
import { tempWorkspace } from '../helpers/workspace.js';

const pkg = (value: object): string => JSON.stringify(value);
const detect = (files: Record<string, string>, pytest?: string) =>
  detectRunners({ files: memoryFiles(files), pytest, nodeVersion: 'v20.19.0' }).map(({ runner, command, format, reportFile, notes }) => ({
    runner,
    command,
    format,
    reportFile,
    notes,
  }));

describe('detectRunners', () => {
  it('node:test from the test script keeps its files and writes a JUnit report to $REDLINE_REPORT', () => {
    assert.deepEqual(detect({ 'package.json': pkg({ scripts: { test: 'node --test --test-reporter=spec test/' } }) }), [
      {
        runner: 'node-test',
        command: 'node --test-reporter=junit --test-reporter-destination=$REDLINE_REPORT --test test/',
        format: 'junit',
        reportFile: '$REDLINE_REPORT',
        notes: ['keeps the arguments of the test script (node --test --test-reporter=spec test/)'],
      },
    ]);
  });

  it('node:test from a test file that imports it, with no test script', () => {
    const [found] = detect({ 'package.json': '{}', 'test/add.test.mjs': "import test from 'node:test';\n" });
    assert.equal(found?.command, 'node --test-reporter=junit --test-reporter-destination=$REDLINE_REPORT --test');
  });

  it('vitest from its dependency or its config file: `run` with the junit reporter, watch mode dropped', () => {
    const expected = {
      runner: 'vitest',
      command: 'node_modules/.bin/vitest run --reporter=junit --outputFile=$REDLINE_REPORT',
      format: 'junit',
      reportFile: '$REDLINE_REPORT',
      notes: [],
    };
    assert.deepEqual(detect({ 'package.json': pkg({ devDependencies: { vitest: '^3.2.0' } }) }), [expected]);
    assert.deepEqual(detect({ 'vitest.config.ts': 'export default {}' }), [expected]);
    assert.equal(
      detect({ 'package.json': pkg({ scripts: { test: 'vitest --watch --reporter=dot' } }) })[0]?.command,
      'node_modules/.bin/vitest run --reporter=junit --outputFile=$REDLINE_REPORT',
    );
  });

  it('vitest set up only in vite.config under a `test` key, vitest installed as another package’s dependency', () => {
    const config = [
      "import { defineConfig } from 'vite';",
      'export default defineConfig({',
      '  plugins: [],',
      "  test: { environment: 'node', include: ['src/**/*.test.ts'] },",
      '});',
    ].join('\n');
    for (const name of ['vite.config.ts', 'vite.config.js', 'vite.config.mjs']) {
      const [found] = detectRunners({
        files: memoryFiles({
          [name]: config,
          'package.json': pkg({ devDependencies: { vite: '^6.0.0' } }),
          'node_modules/vitest/package.json': pkg({ version: '3.2.4' }),
        }),
        nodeVersion: 'v20.19.0',
      });
      assert.deepEqual(
        [found?.runner, found?.label, found?.evidence, found?.command],
        ['vitest', 'vitest 3.2.4', [`${name} test:`], 'node_modules/.bin/vitest run --reporter=junit --outputFile=$REDLINE_REPORT'],
        name,
      );
    }
    // Quoted keys and a config function count too.
    assert.equal(detect({ 'vite.config.ts': 'export default defineConfig(() => ({ "test": { globals: true } }))' })[0]?.runner, 'vitest');
    // A vite config without tests, a `test` elsewhere than as a key, or one commented out, is no test runner.
    for (const text of [
      'export default defineConfig({ plugins: [] })',
      "export default { build: { rollupOptions: { input: 'test.html' } }, define: { 'test.x': 1 } }",
      'export default {\n  // test: { globals: true },\n}',
      'export default { server: { proxy: { "/api": { bypass: (req) => req.test } } } }',
    ])
      assert.deepEqual(detect({ 'vite.config.ts': text }), [], text);
  });

  it('jest through jest-junit, and says when jest-junit has to be installed', () => {
    const [without] = detect({ 'package.json': pkg({ scripts: { test: 'jest --coverage' }, devDependencies: { jest: '29.7.0' } }) });
    assert.equal(without?.command, 'JEST_JUNIT_OUTPUT_FILE=$REDLINE_REPORT node_modules/.bin/jest --ci --reporters=jest-junit --coverage');
    assert.match(without?.notes[0] ?? '', /needs jest-junit \(npm install --save-dev jest-junit@16\)/);
    const [withJunit] = detect({
      'package.json': pkg({ devDependencies: { jest: '29.7.0', 'jest-junit': '16.0.0' } }),
      'jest.config.js': '',
    });
    assert.deepEqual(withJunit?.notes, []);
    assert.equal(detect({ 'package.json': pkg({ jest: { testEnvironment: 'node' } }) })[0]?.runner, 'jest');
  });

  it("mocha's, ava's and tap's own TAP reporters, read from stdout", () => {
    assert.deepEqual(detect({ 'package.json': pkg({ scripts: { test: 'mocha -R spec "test/**/*.spec.js"' } }) })[0], {
      runner: 'mocha',
      command: 'node_modules/.bin/mocha --reporter tap "test/**/*.spec.js"',
      format: 'tap',
      reportFile: undefined,
      notes: ['keeps the arguments of the test script (mocha -R spec "test/**/*.spec.js")'],
    });
    assert.equal(detect({ '.mocharc.yml': 'spec: test' })[0]?.command, 'node_modules/.bin/mocha --reporter tap');
    assert.equal(detect({ 'package.json': pkg({ devDependencies: { ava: '6.1.3' } }) })[0]?.command, 'node_modules/.bin/ava --tap');
    assert.equal(
      detect({ 'package.json': pkg({ devDependencies: { tap: '21.0.0' } }) })[0]?.command,
      'node_modules/.bin/tap --reporter=tap',
    );
  });

  it("tape's TAP stream, with the test script's files (its formatter pipe dropped) or test/**/*.js", () => {
    assert.equal(
      detect({ 'package.json': pkg({ scripts: { test: 'tape test/*.js | tap-spec' }, devDependencies: { tape: '5' } }) })[0]?.command,
      'node_modules/.bin/tape test/*.js',
    );
    assert.equal(detect({ 'package.json': pkg({ devDependencies: { tape: '5' } }) })[0]?.command, "node_modules/.bin/tape 'test/**/*.js'");
  });

  it('pytest from its config or test files, run as python3 -m pytest with a JUnit report, and says when it does not run here', () => {
    for (const files of [
      { 'pytest.ini': '[pytest]\n' },
      { 'pyproject.toml': '[tool.pytest.ini_options]\n' },
      { 'setup.cfg': '[tool:pytest]\n' },
      { 'tests/test_calc.py': 'def test_x(): pass\n' },
    ]) {
      assert.deepEqual(detect(files, 'pytest 8.3.2'), [
        {
          runner: 'pytest',
          command: 'python3 -m pytest -q -p no:cacheprovider --junitxml=$REDLINE_REPORT',
          format: 'junit',
          reportFile: '$REDLINE_REPORT',
          notes: [],
        },
      ]);
    }
    assert.match(detect({ 'pytest.ini': '' })[0]?.notes[0] ?? '', /does not run here: install pytest/);
  });

  it("puts the test script's runner first, and a runner named only as a reporter is no runner", () => {
    assert.deepEqual(
      detect({
        'package.json': pkg({ scripts: { test: 'mocha --reporter tap && vitest run' }, devDependencies: { jest: '29.7.0' } }),
      }).map((found) => found.runner),
      ['mocha', 'vitest', 'jest'],
    );
    assert.deepEqual(detect({ 'package.json': pkg({ scripts: { test: 'echo "no test" && exit 1' } }), 'src/a.js': '' }), []);
  });

  it('follows the test script into the scripts it runs with npm run, pnpm or yarn', () => {
    const scripts = {
      test: 'npm run lint && npm run test:unit',
      lint: 'eslint .',
      'test:unit': 'yarn vitest:once',
      'vitest:once': 'vitest run src',
    };
    assert.deepEqual(
      detect({ 'package.json': pkg({ scripts }) }).map((found) => [found.runner, found.command]),
      [['vitest', 'node_modules/.bin/vitest run --reporter=junit --outputFile=$REDLINE_REPORT src']],
    );
    assert.equal(detect({ 'package.json': pkg({ scripts: { test: 'pnpm jest --runInBand' } }) })[0]?.runner, 'jest');
  });

  it('labels a runner with its installed version, else the range package.json declares', () => {
    const files = {
      'package.json': pkg({ devDependencies: { vitest: '^3.2.0', mocha: '10.8.2' } }),
      'node_modules/vitest/package.json': pkg({ version: '3.2.4' }),
    };
    assert.deepEqual(
      detectRunners({ files: memoryFiles(files) }).map((found) => found.label),
      ['vitest 3.2.4', 'mocha 10.8.2 (declared)'],
    );
  });
});

describe('scopeFromLayout', () => {
  it('source folders, without the tests, test folders and runner configs beside them', () => {
    assert.deepEqual(
      scopeFromLayout(memoryFiles({ 'src/a.js': '', 'lib/b.js': '', 'test/a.test.js': '', 'vitest.config.ts': '', 'docs/x.md': '' })),
      { scope: ['lib/**', 'src/**'] },
    );
  });

  it('co-located test files stay out of a source folder', () => {
    assert.deepEqual(scopeFromLayout(memoryFiles({ 'src/a.ts': '', 'src/a.test.ts': '' })).scope, [
      'src/**/!(*.test.*|*.spec.*|test_*.py|*_test.py|conftest.py)',
    ]);
  });

  it('a Python package is a source folder, its tests folder is not', () => {
    assert.deepEqual(scopeFromLayout(memoryFiles({ 'calc/__init__.py': '', 'tests/__init__.py': '', 'tests/test_calc.py': '' })).scope, [
      'calc/**',
    ]);
  });

  it('without a source folder, the top-level source files by name, tests and configs left out', () => {
    const found = scopeFromLayout(
      memoryFiles({ 'index.js': '', 'index.test.js': '', 'jest.config.js': '', '.eslintrc.js': '', 'conftest.py': '', 'util.py': '' }),
    );
    assert.deepEqual(found.scope, ['index.js', 'util.py']);
    assert.match(found.note ?? '', /no source folder/);
  });
});

describe('missionText', () => {
  it('is a mission the loader accepts: the runner as the demand check, the scope, written-out guards, the agent', async () => {
    const files = memoryFiles({ 'package.json': pkg({ devDependencies: { vitest: '3.2.4' } }), 'src/a.js': '' });
    const dir = await tempWorkspace({ 'src/a.js': '' });
    await writeFile(
      path.join(dir, 'mission.yaml'),
      missionText({
        id: 'repo',
        runners: detectRunners({ files }),
        scope: scopeFromLayout(files),
        formatCheck: formatCheckFor(files, ['src']),
        agent: 'claude',
      }),
    );
    const mission = await loadMission(path.join(dir, 'mission.yaml'));
    assert.equal(mission.workspaceDir, dir);
    assert.deepEqual(mission.scope, ['src/**']);
    assert.deepEqual(
      mission.checks.map((check) => ({ name: check.name, kind: check.kind, tier: check.tier })),
      [{ name: 'tests', kind: 'test-runner', tier: 'demand' }],
    );
    assert.deepEqual(mission.stopPolicy.guards?.length, 3);
    assert.deepEqual(mission.proposer, { ...mission.proposer, kind: 'agent', preset: 'claude' });
  });

  it('without a runner: a format check only, and the note that runs end unverified', async () => {
    const files = memoryFiles({ 'src/a.py': '' });
    const dir = await tempWorkspace({ 'src/a.py': '' });
    const text = missionText({ id: 'repo', runners: [], scope: scopeFromLayout(files), formatCheck: formatCheckFor(files, ['src']) });
    assert.match(text, /no demand check: its runs end `unverified` at best/);
    assert.match(text, /^# proposer:$/m);
    await writeFile(path.join(dir, 'mission.yaml'), text);
    const mission = await loadMission(path.join(dir, 'mission.yaml'));
    assert.deepEqual(
      mission.checks.map((check) => ({ name: check.name, kind: check.kind, tier: check.tier })),
      [{ name: 'format', kind: 'command', tier: 'format' }],
    );
    assert.equal(mission.proposer, undefined);
  });
});
