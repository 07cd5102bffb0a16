import type { ReviewServer } from '../../src/review-app/serve-review-app.js';

/** A signed-in reviewer's session cookie and CSRF token, for requests made with `fetch`. */
export interface AppSession {
  readonly cookie: string;
  /** POSTs `fields` (and the CSRF token) to `route` from the app's origin; redirects are not followed. */
  readonly post: (route: string, fields?: Record<string, string>) => Promise<Response>;
  readonly get: (route: string) => Promise<Response>;
}

/** Signs in to `server` with `token` as a browser does: the sign-in form, its nonce cookie, then a POST. */
export async function signInWithFetch(server: Pick<ReviewServer, 'url'>, token: string): Promise<AppSession> {
  const form = await fetch(`${server.url}/sign-in`);
  const nonce = /name="nonce" value="([^"]+)"/.exec(await form.text())?.[1] ?? '';
  const signedIn = await fetch(`${server.url}/sign-in`, {
    method: 'POST',
    redirect: 'manual',
    headers: {
      Origin: server.url,
      Cookie: (form.headers.get('set-cookie') ?? '').split(';')[0] ?? '',
      'Content-Type': 'application/x-www-form-urlencoded',
    },
    body: new URLSearchParams({ token, nonce }),
  });
  if (signedIn.status !== 303) throw new Error(`Expected the sign-in to answer 303, got ${signedIn.status}`);
  const cookie = /redline_review_session=[^;]+/.exec(signedIn.headers.get('set-cookie') ?? '')?.[0] ?? '';
  const get = (route: string): Promise<Response> => fetch(`${server.url}${route}`, { headers: { Cookie: cookie }, redirect: 'manual' });
  const csrf = /name="csrf" value="([^"]+)"/.exec(await (await get('/')).text())?.[1] ?? '';
  return {
    cookie,
    get,
    post: (route, fields = {}) =>
      fetch(`${server.url}${route}`, {
        method: 'POST',
        redirect: 'manual',
        headers: { Origin: server.url, Cookie: cookie, 'Content-Type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ csrf, ...fields }),
      }),
  };
}
