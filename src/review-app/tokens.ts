import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/** A new sign-in token: 32 random bytes, base64url (43 characters). */
export function generateToken(): string {
  return randomBytes(32).toString('base64url');
}

/** What the queue stores for a token: its SHA-256, hex. Tokens are random, so no slow hash is needed. */
export function hashToken(token: string): string {
  if (typeof token !== 'string' || token.length === 0) throw new TypeError(`Expected a token, got ${JSON.stringify(token)}`);
  return createHash('sha256').update(token).digest('hex');
}

/** Whether two strings are equal, compared in time independent of where they differ. */
export function sameSecret(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}
