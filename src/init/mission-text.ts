import type { DetectedRunner } from './detect-runner.js';
import type { FormatCheck } from './format-check.js';
import type { LayoutScope } from './scope-from-layout.js';

export interface MissionTextOptions {
  /** The mission's id (letters, digits, `.`, `_`, `-`). */
  readonly id: string;
  readonly runners: readonly DetectedRunner[];
  readonly scope: LayoutScope;
  /** The check a mission without a runner gets. */
  readonly formatCheck: FormatCheck;
  /** The agent preset whose CLI is on PATH, if any. */
  readonly agent?: string | undefined;
}

/** A YAML scalar: JSON's double-quoted strings are YAML's too. */
const quoted = (text: string): string => JSON.stringify(text);

/** The check a runner gets: the first is `tests`, any other is named by its runner. */
function runnerCheck(runner: DetectedRunner, index: number): string[] {
  return [
    `  # ${runner.label}, found by: ${runner.evidence.join(', ')}.`,
    ...runner.notes.map((note) => `  # ${note}.`),
    `  - name: ${index === 0 ? 'tests' : runner.runner}`,
    '    kind: test-runner',
    `    command: ${quoted(runner.command)}`,
    `    format: ${runner.format}`,
    ...(runner.reportFile === undefined ? [] : [`    reportFile: ${runner.reportFile}`]),
    '    timeout: 5m',
  ];
}

/**
 * The commented `mission.yaml` `redline init` writes: the repository is the workspace, its test suite the
 * demand red line (one check per runner), its source folders the scope, the default stuck-loop guards
 * written out, and the agent found on PATH (else the choice, commented).
 */
export function missionText({ id, runners, scope, formatCheck, agent }: MissionTextOptions): string {
  const verified = runners.length > 0;
  const checks = verified
    ? runners.flatMap(runnerCheck)
    : [
        '  # No test runner was found, so this mission has no demand check: its runs end `unverified` at best, never',
        '  # `verified`. Add a test-runner check (docs/checks.md) and a test suite to give it a red line.',
        `  # A format check (${formatCheck.why}).`,
        '  - name: format',
        '    kind: command',
        `    command: ${quoted(formatCheck.command)}`,
        '    tier: format',
        '    timeout: 5m',
      ];
  const proposer =
    agent === undefined
      ? [
          '# Who proposes: no agent CLI (codex, claude, qwen, gemini) was found on PATH. Uncomment one, or pass',
          '# --agent <preset> or --proposer <program> to `redline run` (docs/agents.md).',
          '# proposer:',
          '#   kind: agent',
          '#   preset: codex # codex | claude | qwen | gemini',
        ]
      : [
          `# Who proposes: the ${agent} CLI found on PATH, with its tested command line (docs/agents.md); --agent or`,
          '# --proposer on `redline run` overrides it.',
          'proposer:',
          '  kind: agent',
          `  preset: ${agent}`,
        ];
  return [
    "# Written by `redline init`: a mission whose red line is this repository's test suite. Review it, then",
    '#   npx redline run mission.yaml',
    '# A task is a failing test: write the test that shows what is wanted (or the bug), then run the mission.',
    verified
      ? '# It ends complete / verified when every test passes, the new one included, and no test was lost.'
      : '# Without a test runner its runs end unverified (see checks).',
    `id: ${id}`,
    'goal: >-',
    '  Make every failing test of the suite pass by changing the source code. Do not edit, skip or delete',
    '  tests or the test configuration.',
    'taskType: fix-failing-tests',
    '# The repository as it is: each run snapshots it (node_modules included) and checks every candidate',
    '# in a copy of that snapshot; the working tree is never written.',
    'workspace: .',
    '# Left out of the snapshots besides .git and .redline: caches no check needs.',
    "ignore: ['**/__pycache__', '.pytest_cache', 'node_modules/.cache', coverage]",
    "# What a candidate may change: the source, never the tests or the test runner's configuration.",
    ...(scope.note === undefined ? [] : [`# Note: ${scope.note}.`]),
    'scope:',
    ...scope.scope.map((glob) => `  - ${quoted(glob)}`),
    'budgets:',
    '  maxAttempts: 5 # proposals, each checked against the whole suite',
    '  maxWallClock: 30m # the whole run; with a metered agent add maxTokens or maxCostUsd (docs/metering.md)',
    'checks:',
    ...checks,
    'stopPolicy:',
    '  # Stop a stuck loop before the budget does: the same candidates coming back, the same output twice in',
    '  # three attempts, attempts that fail no fewer tests (docs/stop-rules.md).',
    '  guards:',
    '    - oscillation: {}',
    '    - repeatedOutput: { window: 3, repeats: 2 }',
    '    - noProgress: {}',
    ...proposer,
    '',
  ].join('\n');
}
