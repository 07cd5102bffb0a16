import { StringDecoder } from 'node:string_decoder';

/** Longest event the reader holds while it waits for the event's end; a longer one is skipped, not buffered. */
const MAX_EVENT_CHARS = 8 * 1024 * 1024;

/**
 * Reads a server-sent event stream as it arrives, chunk by chunk, and gives each event's `data` parsed as
 * JSON (OpenAI's `[DONE]` and data that is not JSON are skipped). Only reads: the bytes are forwarded as they came.
 */
export class SseReader {
  readonly #decoder = new StringDecoder('utf8');
  #pending = '';
  #data: string[] = [];
  #size = 0;

  /** The events completed by `chunk`. */
  push(chunk: Buffer): unknown[] {
    this.#pending += this.#decoder.write(chunk);
    const events: unknown[] = [];
    let newline = this.#pending.indexOf('\n');
    while (newline !== -1) {
      this.#line(this.#pending.slice(0, newline).replace(/\r$/, ''), events);
      this.#pending = this.#pending.slice(newline + 1);
      newline = this.#pending.indexOf('\n');
    }
    return events;
  }

  /** The last event, when the stream ended without the blank line after it. */
  end(): unknown[] {
    const events: unknown[] = [];
    this.#pending += this.#decoder.end();
    if (this.#pending !== '') this.#line(this.#pending, events);
    this.#pending = '';
    this.#line('', events);
    return events;
  }

  #line(line: string, events: unknown[]): void {
    if (line === '') {
      const data = this.#data.join('\n');
      this.#data = [];
      this.#size = 0;
      if (data === '' || data === '[DONE]') return;
      try {
        events.push(JSON.parse(data));
      } catch {
        // Not JSON: nothing the meter counts.
      }
      return;
    }
    if (!line.startsWith('data:') || this.#size > MAX_EVENT_CHARS) return;
    const value = line.slice(5).replace(/^ /, '');
    this.#size += value.length;
    this.#data.push(value);
  }
}
