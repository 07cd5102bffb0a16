import { constants } from 'node:fs';
import { open } from 'node:fs/promises';
import { StringDecoder } from 'node:string_decoder';
import { failureIn, type OutputStream } from './agent-presets/agent-preset.js';

/** The agent's own error message on one line of its output, if any (see `AgentPreset.errorIn`). */
export type AgentErrors = (line: string, stream: OutputStream) => string | undefined;

/** How often the transcript is read while the agent runs. */
const POLL_MS = 200;
/** Longest line kept while waiting for its end. */
const MAX_LINE = 65_536;

/** Splits chunks into lines, handing each complete one on. */
function lineReader(onLine: (line: string) => void): (text: string) => void {
  let partial = '';
  return (text) => {
    const lines = (partial + text).split('\n');
    partial = (lines.pop() ?? '').slice(-MAX_LINE);
    for (const line of lines) onLine(line.replace(/\r$/, ''));
  };
}

/** A watch over one attempt's output for a failure of the agent's environment. */
export interface EnvironmentWatch {
  /** Aborts when a failure was seen: end the agent, whose next attempts would fail the same way. */
  readonly signal: AbortSignal;
  /** Feeds a chunk of the agent's stderr. */
  stderr(chunk: Buffer): void;
  /** Once the agent exited: reads the rest of the transcript and stops; the failure of its environment seen, and its last error message. */
  finish(): Promise<{ readonly environment?: string; readonly lastError?: string }>;
}

/**
 * Watches an attempt's transcript file (read every 200 ms as it grows) and stderr, line by line, for the
 * agent's own error messages (`errors`), and aborts `signal` at the first one that shows a failure of its
 * environment (`failureIn`). Without `errors`, a watch that sees nothing.
 */
export function watchEnvironment(transcript: string, errors: AgentErrors | undefined): EnvironmentWatch {
  const controller = new AbortController();
  let found: string | undefined;
  let lastError: string | undefined;
  const see = (stream: OutputStream) => (line: string) => {
    if (found !== undefined || errors === undefined) return;
    const said = errors(line, stream);
    if (said === undefined) return;
    lastError = said.trim().slice(0, 500);
    found = failureIn(said);
    if (found !== undefined) controller.abort(new Error(found));
  };
  const stderr = lineReader(see('stderr'));
  const transcriptLines = lineReader(see('transcript'));
  const stderrText = new StringDecoder('utf8');
  const transcriptText = new StringDecoder('utf8');
  let offset = 0;
  const readMore = async (): Promise<void> => {
    // The agent owns the file: a symlink is not followed, a FIFO does not block, and only a regular file is read.
    const handle = await open(transcript, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK).catch(() => undefined);
    if (handle === undefined) return;
    try {
      if (!(await handle.stat()).isFile()) return;
      const buffer = Buffer.alloc(65_536);
      for (;;) {
        const { bytesRead } = await handle.read(buffer, 0, buffer.length, offset);
        if (bytesRead === 0) break;
        offset += bytesRead;
        transcriptLines(transcriptText.write(buffer.subarray(0, bytesRead)));
      }
    } finally {
      await handle.close();
    }
  };
  let reading = Promise.resolve();
  const timer = errors === undefined ? undefined : setInterval(() => (reading = reading.then(readMore)), POLL_MS);
  return {
    signal: controller.signal,
    stderr: (chunk) => stderr(stderrText.write(chunk)),
    async finish() {
      clearInterval(timer);
      if (errors !== undefined) await (reading = reading.then(readMore));
      // A last line without its newline is a line too.
      stderr('\n');
      transcriptLines('\n');
      return { ...(found === undefined ? {} : { environment: found }), ...(lastError === undefined ? {} : { lastError }) };
    },
  };
}
