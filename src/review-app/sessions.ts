import { randomBytes } from 'node:crypto';

/** A signed-in reviewer: who, the CSRF token their forms carry, and when the session ends. */
export interface Session {
  readonly id: string;
  readonly reviewer: string;
  readonly csrf: string;
  readonly expiresAt: number;
}

/** The session cookie's name. */
export const SESSION_COOKIE = 'redline_review_session';

/**
 * The server's sessions, held in its memory only: a restart signs everyone out. A session id is 32 random
 * bytes; the browser holds it in an HttpOnly, SameSite=Strict cookie and never sees the token again.
 */
export class Sessions {
  readonly #sessions = new Map<string, Session>();
  readonly #ttlMs: number;
  readonly #now: () => number;

  constructor({ ttlMs = 12 * 3_600_000, now = Date.now }: { ttlMs?: number; now?: () => number } = {}) {
    if (!Number.isFinite(ttlMs) || ttlMs <= 0) throw new TypeError(`Expected ttlMs to be a positive number, got ${ttlMs}`);
    this.#ttlMs = ttlMs;
    this.#now = now;
  }

  start(reviewer: string): Session {
    const session = {
      id: randomBytes(32).toString('base64url'),
      reviewer,
      csrf: randomBytes(32).toString('base64url'),
      expiresAt: this.#now() + this.#ttlMs,
    };
    this.#sessions.set(session.id, session);
    return session;
  }

  /** The live session with this id; an expired one is forgotten. */
  get(id: string | undefined): Session | undefined {
    if (id === undefined) return undefined;
    const session = this.#sessions.get(id);
    if (session === undefined) return undefined;
    if (session.expiresAt > this.#now()) return session;
    this.#sessions.delete(id);
    return undefined;
  }

  end(id: string): void {
    this.#sessions.delete(id);
  }

  /** Whether `reviewer` still has another live session (their claims stay then). */
  signedIn(reviewer: string): boolean {
    const at = this.#now();
    for (const session of this.#sessions.values()) if (session.reviewer === reviewer && session.expiresAt > at) return true;
    return false;
  }
}
