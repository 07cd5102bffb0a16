import { endpointWord, unlessGiven, eventOf, keyAssignment, shellWord, textAt, type AgentPreset } from './agent-preset.js';

/** Gemini CLI's settings for a given endpoint: its headless mode takes an API-key login only from settings then. */
const SETTINGS = '{"security":{"auth":{"selectedType":"gemini-api-key"}}}';

/**
 * Gemini CLI: `-p` runs headless, `stream-json` events on stdout, `--skip-trust` trusts the copy (a new folder
 * each run). Outside redline's sandbox `--approval-mode auto_edit` lets it edit files; inside it, `yolo` lets
 * it run commands too. An endpoint (`GOOGLE_GEMINI_BASE_URL`, the Gemini API) needs the API-key login
 * selected in its settings, so the line gives it a settings folder of its own in `$TMPDIR`
 * (`GEMINI_CLI_HOME`). The meter does not speak the Gemini API.
 */
export const geminiPreset: AgentPreset = {
  name: 'gemini',
  package: '@google/gemini-cli',
  version: '0.61.0',
  bin: 'gemini',
  keyEnv: 'GEMINI_API_KEY',
  metered: false,
  line(program, { model, endpoint, apiKeyEnv, args, sandboxed }) {
    const words = [
      ...(sandboxed ? ['HOME="$TMPDIR"'] : []),
      ...(endpoint === undefined ? [] : ['GEMINI_CLI_HOME="$TMPDIR/gemini"', `GOOGLE_GEMINI_BASE_URL=${endpointWord(endpoint)}`]),
      ...keyAssignment('GEMINI_API_KEY', apiKeyEnv),
      program,
      '-p "$REDLINE_PROMPT" --skip-trust --output-format stream-json',
      ...unlessGiven(args, ['--approval-mode', '--yolo', '-y'], sandboxed ? '--approval-mode yolo' : '--approval-mode auto_edit'),
      ...(model === undefined ? [] : unlessGiven(args, ['--model', '-m'], `--model ${shellWord(model)}`)),
      ...args.map(shellWord),
      '> "$REDLINE_TRANSCRIPT"',
    ];
    const settings =
      endpoint === undefined
        ? ''
        : `mkdir -p "$TMPDIR/gemini/.gemini" && printf %s '${SETTINGS}' > "$TMPDIR/gemini/.gemini/settings.json" && `;
    return `${settings}${words.join(' ')}`;
  },
  errorIn(line, stream) {
    // It retries a failed call for minutes, saying so on stderr each time: `Attempt 1 failed. Retrying…`.
    if (stream === 'stderr') return /^Attempt \d+ failed/.test(line) ? line : undefined;
    const event = eventOf(line);
    if (event?.type === 'error') return textAt(event, 'message');
    if (event?.type === 'result' && event.status === 'error') return textAt(event.error, 'message') ?? 'the session ended on an error';
    return undefined;
  },
};
