import { endpointWord, unlessGiven, eventOf, keyAssignment, shellWord, textAt, type AgentPreset } from './agent-preset.js';

/**
 * Qwen Code: a positional prompt runs one turn headless, `stream-json` events on stdout. Its own sandbox is
 * a container (Docker, Podman), not used here. Outside redline's sandbox `--approval-mode auto-edit` lets it
 * edit files and refuses its shell commands; inside it, `yolo` lets it run them too. An endpoint is an
 * OpenAI-compatible one (`--auth-type openai`, `OPENAI_BASE_URL`).
 */
export const qwenPreset: AgentPreset = {
  name: 'qwen',
  package: '@qwen-code/qwen-code',
  version: '0.24.4',
  bin: 'qwen',
  keyEnv: 'OPENAI_API_KEY',
  metered: true,
  line(program, { model, endpoint, apiKeyEnv, args, sandboxed }) {
    return [
      ...(sandboxed ? ['HOME="$TMPDIR"'] : []),
      // The meter's URL reaches the agent as OPENAI_BASE_URL already.
      ...(endpoint === 'base-url' ? [`OPENAI_BASE_URL=${endpointWord(endpoint)}`] : []),
      ...keyAssignment('OPENAI_API_KEY', apiKeyEnv),
      program,
      '--output-format stream-json',
      ...unlessGiven(args, ['--approval-mode', '--yolo', '-y'], sandboxed ? '--approval-mode yolo' : '--approval-mode auto-edit'),
      ...(endpoint === undefined ? [] : ['--auth-type openai']),
      ...(model === undefined ? [] : unlessGiven(args, ['--model', '-m'], `--model ${shellWord(model)}`)),
      ...args.map(shellWord),
      '"$REDLINE_PROMPT" > "$REDLINE_TRANSCRIPT"',
    ].join(' ');
  },
  errorIn(line, stream) {
    if (stream !== 'transcript') return undefined;
    const event = eventOf(line);
    if (event?.type !== 'result' || event.is_error !== true) return undefined;
    return textAt(event.error, 'message') ?? textAt(event, 'result') ?? 'the session ended on an error';
  },
};
