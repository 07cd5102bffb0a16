import type { IncomingHttpHeaders } from 'node:http';
import type { Transform } from 'node:stream';
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';
import type { ModelProtocol } from '../core/model-call.js';
import type { TokenCount } from './prices.js';
import { bodyUsage, streamUsage } from './protocols.js';
import { SseReader } from './sse.js';

/** Largest whole (not streamed) answer the reader parses for its usage. */
const MAX_JSON_BYTES = 32 * 1024 * 1024;

/** A decompressor for an answer the endpoint compressed although the meter asked it not to. */
function decompressor(encoding: string | undefined): Transform | undefined {
  switch (encoding?.trim().toLowerCase()) {
    case 'gzip':
    case 'x-gzip':
      return createGunzip();
    case 'deflate':
      return createInflate();
    case 'br':
      return createBrotliDecompress();
    default:
      return undefined;
  }
}

/**
 * Reads the usage of one model call's answer as its bytes pass, without holding them up: events of a streamed
 * (`text/event-stream`) answer as they come, a whole JSON answer at its end.
 */
export class AnswerReader {
  readonly #protocol: ModelProtocol;
  readonly #sse: SseReader | undefined;
  readonly #inflate: Transform | undefined;
  readonly #inflated: Promise<void>;
  #json: Buffer[] = [];
  #jsonBytes = 0;
  #usage: TokenCount | undefined;
  #ended: Promise<void> | undefined;

  constructor(protocol: ModelProtocol, headers: IncomingHttpHeaders) {
    this.#protocol = protocol;
    this.#sse = headers['content-type']?.includes('text/event-stream') === true ? new SseReader() : undefined;
    this.#inflate = protocol === 'other' ? undefined : decompressor(headers['content-encoding']);
    const inflate = this.#inflate;
    this.#inflated =
      inflate === undefined
        ? Promise.resolve()
        : new Promise((resolve) => {
            inflate.on('data', (chunk: Buffer) => this.#read(chunk));
            inflate.once('end', resolve);
            // A corrupt answer reports no usage, and the call is forwarded all the same.
            inflate.once('error', () => resolve());
          });
  }

  push(chunk: Buffer): void {
    if (this.#protocol === 'other') return;
    if (this.#inflate !== undefined) this.#inflate.write(chunk);
    else this.#read(chunk);
  }

  /** Reads what is left, once the answer ended (or was cut off); once. */
  end(): Promise<void> {
    this.#ended ??= this.#finish();
    return this.#ended;
  }

  async #finish(): Promise<void> {
    if (this.#inflate !== undefined) {
      this.#inflate.end();
      await this.#inflated;
    }
    if (this.#sse !== undefined) {
      for (const event of this.#sse.end()) this.#usage = streamUsage(this.#protocol, event, this.#usage);
      return;
    }
    if (this.#json.length === 0) return;
    try {
      this.#usage = bodyUsage(this.#protocol, JSON.parse(Buffer.concat(this.#json).toString('utf8')));
    } catch {
      // Not JSON (an HTML error page): no usage.
    }
    this.#json = [];
  }

  /** The usage the answer reported so far; undefined while it reported none. */
  usage(): TokenCount | undefined {
    return this.#usage;
  }

  #read(chunk: Buffer): void {
    if (this.#sse !== undefined) {
      for (const event of this.#sse.push(chunk)) this.#usage = streamUsage(this.#protocol, event, this.#usage);
      return;
    }
    this.#jsonBytes += chunk.length;
    if (this.#jsonBytes <= MAX_JSON_BYTES) this.#json.push(chunk);
    else this.#json = [];
  }
}
