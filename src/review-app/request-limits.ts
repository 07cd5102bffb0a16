import type { Context, MiddlewareHandler } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { html } from './html.js';
import { page } from './layout.js';

// What the reviewer web app accepts (docs/review-app.md, "Limits"): a body is cut off at its cap before it
// is read whole, and each field a verdict or a filter rule writes into the append-only journal has a cap.

/** Bytes a request body may have before its sender is signed in (the sign-in form holds one token). */
export const SIGNED_OUT_BODY_BYTES = 16 * 1024;
/** Bytes a signed-in request body may have (a verdict or a filter rule with every field at its cap fits). */
export const SIGNED_IN_BODY_BYTES = 64 * 1024;

/** Characters each form field may have; longer ones are refused with 413 and nothing is written. */
export const FIELD_CAPS: Readonly<Record<string, number>> = {
  /** A verdict's or a filter rule's comment. */
  comment: 4_000,
  /** A reason label. */
  label: 100,
  /** A filter rule's text to look for. */
  pattern: 500,
  taskType: 200,
  stopReason: 200,
  reasonCodes: 2_000,
  token: 256,
  csrf: 256,
  decision: 20,
  action: 20,
  enabled: 20,
};

function tooLarge(c: Context, what: string): Response {
  // `Connection: close`: the rest of an oversized body is never read.
  return c.html(
    page({
      title: 'Too large',
      body: html`<h1>Too large</h1>
        <p class="error" role="alert" id="problem">${what}</p>`,
    }),
    413,
    { Connection: 'close' },
  );
}

/**
 * Refuses a body over its cap with 413 before reading it whole: by its `Content-Length`, or while it
 * streams in. `signedIn` says which cap applies to this request.
 */
export function limitBodies(signedIn: (c: Context) => boolean): MiddlewareHandler {
  const signedOutLimit = bodyLimit({
    maxSize: SIGNED_OUT_BODY_BYTES,
    onError: (c) => tooLarge(c, `A request before sign-in may have at most ${SIGNED_OUT_BODY_BYTES} bytes.`),
  });
  const signedInLimit = bodyLimit({
    maxSize: SIGNED_IN_BODY_BYTES,
    onError: (c) => tooLarge(c, `A request may have at most ${SIGNED_IN_BODY_BYTES} bytes.`),
  });
  return (c, next) => (signedIn(c) ? signedInLimit(c, next) : signedOutLimit(c, next));
}

/** The 413 answer for the first form field over its cap (or any field not known, over 200 characters), or `undefined`. */
export function fieldOverCap(c: Context, form: Readonly<Record<string, unknown>>): Response | undefined {
  for (const [name, value] of Object.entries(form)) {
    const cap = Object.hasOwn(FIELD_CAPS, name) ? (FIELD_CAPS[name] as number) : 200;
    const length = typeof value === 'string' ? value.length : Number.POSITIVE_INFINITY;
    if (length > cap) return tooLarge(c, `The field ${name} may have at most ${cap} characters.`);
  }
  return undefined;
}
