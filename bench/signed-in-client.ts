// A reviewer signed in to a served review app, as the web app benches drive it: the start link asks
// first, its confirm form (token, nonce and the nonce's cookie) signs in, and each request carries the
// session cookie over keep-alive `fetch`.
import type { ReviewServer } from '../src/review-app/serve-review-app.js';

/** A signed-in client: `get` times one request to the last byte and fails on anything but 200. */
export interface SignedInClient {
  get(route: string): Promise<{ readonly ms: number; readonly body: string }>;
}

/** Signs in to `server` with its start token. */
export async function signIn(server: ReviewServer, startToken: string): Promise<SignedInClient> {
  const asked = await fetch(`${server.url}/sign-in?token=${startToken}`);
  const nonce = /name="nonce" value="([^"]+)"/.exec(await asked.text())?.[1] ?? '';
  const signedIn = await fetch(`${server.url}/sign-in`, {
    method: 'POST',
    redirect: 'manual',
    headers: {
      Origin: server.url,
      Cookie: (asked.headers.get('set-cookie') ?? '').split(';')[0] ?? '',
      'Content-Type': 'application/x-www-form-urlencoded',
    },
    body: new URLSearchParams({ token: startToken, nonce }),
  });
  const cookie = /redline_review_session=[^;]+/.exec(signedIn.headers.get('set-cookie') ?? '')?.[0] ?? '';
  return {
    async get(route) {
      const start = performance.now();
      const response = await fetch(`${server.url}${route}`, { headers: { cookie } });
      const body = await response.text();
      if (response.status !== 200) throw new Error(`Expected 200 from ${route}, got ${response.status}`);
      return { ms: performance.now() - start, body };
    },
  };
}

/** The median and 95th percentile of timed samples. */
export function spread(samples: readonly number[]): { median: number; p95: number } {
  const sorted = [...samples].sort((a, b) => a - b);
  return { median: sorted[Math.floor(sorted.length / 2)] ?? 0, p95: sorted[Math.floor(sorted.length * 0.95)] ?? 0 };
}
