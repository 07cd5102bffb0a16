import { endpointWord, unlessGiven, eventOf, keyAssignment, shellWord, textAt, type AgentPreset } from './agent-preset.js';

/**
 * Claude Code: print mode (`-p`) with `stream-json` events (`--verbose` is required for them). Outside
 * redline's sandbox `--permission-mode acceptEdits` lets it edit files in its working directory;
 * `--dangerously-skip-permissions` refuses to run as root unless `IS_SANDBOX=1`, which only redline's sandbox
 * makes true, so the preset uses it there alone. Claude Code retries an unreachable endpoint for minutes by
 * default: `CLAUDE_CODE_MAX_RETRIES=2` keeps that to seconds.
 */
export const claudePreset: AgentPreset = {
  name: 'claude',
  package: '@anthropic-ai/claude-code',
  version: '2.1.328',
  bin: 'claude',
  keyEnv: 'ANTHROPIC_API_KEY',
  metered: true,
  line(program, { model, endpoint, apiKeyEnv, args, sandboxed }) {
    return [
      ...(sandboxed ? ['HOME="$TMPDIR"', 'IS_SANDBOX=1'] : []),
      'CLAUDE_CODE_MAX_RETRIES=2 DISABLE_AUTOUPDATER=1',
      // The meter's URL reaches the agent as ANTHROPIC_BASE_URL already.
      ...(endpoint === 'base-url' ? [`ANTHROPIC_BASE_URL=${endpointWord(endpoint)}`] : []),
      ...keyAssignment('ANTHROPIC_API_KEY', apiKeyEnv),
      program,
      '-p "$REDLINE_PROMPT" --output-format stream-json --verbose',
      ...unlessGiven(
        args,
        ['--permission-mode', '--dangerously-skip-permissions'],
        sandboxed ? '--dangerously-skip-permissions' : '--permission-mode acceptEdits',
      ),
      ...(model === undefined ? [] : unlessGiven(args, ['--model', '-m'], `--model ${shellWord(model)}`)),
      ...args.map(shellWord),
      '> "$REDLINE_TRANSCRIPT"',
    ].join(' ');
  },
  errorIn(line, stream) {
    if (stream !== 'transcript') return undefined;
    const event = eventOf(line);
    // The result event of a session that ended on an error (an API error, --max-turns): `result` says it.
    if (event?.type !== 'result' || event.is_error !== true) return undefined;
    return textAt(event, 'result') ?? textAt(event, 'api_error') ?? 'the session ended on an error';
  },
};
