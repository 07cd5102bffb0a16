import { assertReviewer } from './review-item.js';

const TOKEN_HASH = /^[0-9a-f]{64}$/;

/** Refuses a reviewer name that is not a non-empty string, or a token hash that is not a hex SHA-256. */
export function assertReviewerEntry(name: unknown, tokenHash: unknown): asserts tokenHash is string {
  assertReviewer(name);
  assertTokenHash(tokenHash);
}

/** Refuses a token hash that is not 64 lowercase hex digits (a SHA-256). */
export function assertTokenHash(tokenHash: unknown): asserts tokenHash is string {
  if (typeof tokenHash !== 'string' || !TOKEN_HASH.test(tokenHash))
    throw new TypeError(`Expected a token hash of 64 hex digits, got ${JSON.stringify(tokenHash)}`);
}
