import { endpointWord, unlessGiven, eventOf, keyAssignment, shellWord, textAt, type AgentPreset } from './agent-preset.js';

/**
 * OpenAI Codex CLI: `codex exec --json`, its events on stdout. Outside redline's sandbox, Codex's own
 * (`--sandbox workspace-write`) confines its commands to the copy; inside it, Codex's sandbox cannot start
 * (it refuses to create its helper binaries under /tmp, where the sandbox's HOME is, and its commands then
 * fail with `bwrap: execvp codex-linux-sandbox`), so it is turned off there and redline's confines it.
 * An endpoint is a model provider block given with `-c`, its key read from the variable named there.
 */
export const codexPreset: AgentPreset = {
  name: 'codex',
  package: '@openai/codex',
  version: '0.169.0',
  bin: 'codex',
  keyEnv: 'OPENAI_API_KEY',
  metered: true,
  line(program, { model, endpoint, apiKeyEnv, args, sandboxed }) {
    const provider =
      endpoint === undefined
        ? []
        : [
            '-c model_provider=redline',
            `-c "model_providers.redline={name=\\"redline\\",base_url=\\"${endpointWord(endpoint).slice(1, -1)}\\",env_key=\\"${apiKeyEnv ?? 'OPENAI_API_KEY'}\\",wire_api=\\"responses\\",request_max_retries=1,stream_max_retries=1}"`,
          ];
    const words = [
      ...(sandboxed ? ['HOME="$TMPDIR"', 'CODEX_HOME="$TMPDIR/.codex"'] : []),
      ...(endpoint === undefined ? keyAssignment('CODEX_API_KEY', apiKeyEnv) : []),
      program,
      'exec --json --skip-git-repo-check',
      ...unlessGiven(
        args,
        ['--sandbox', '-s', '--dangerously-bypass-approvals-and-sandbox', '--full-auto'],
        sandboxed ? '--dangerously-bypass-approvals-and-sandbox' : '--sandbox workspace-write',
      ),
      ...(model === undefined ? [] : unlessGiven(args, ['--model', '-m'], `--model ${shellWord(model)}`)),
      ...provider,
      ...args.map(shellWord),
      '"$REDLINE_PROMPT" > "$REDLINE_TRANSCRIPT"',
    ];
    return `${sandboxed ? 'mkdir -p "$TMPDIR/.codex" && ' : ''}${words.join(' ')}`;
  },
  errorIn(line, stream) {
    if (stream !== 'transcript') return undefined;
    const event = eventOf(line);
    // Codex's own errors: `{"type":"error","message":…}` (it retries, "Reconnecting…"), `turn.failed`.
    if (event?.type === 'error') return textAt(event, 'message');
    if (event?.type === 'turn.failed') return textAt(event.error, 'message');
    return undefined;
  },
};
