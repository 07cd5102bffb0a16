import { html } from './html.js';
import { page } from './layout.js';

/** The cookie holding the sign-in form's nonce: a sign-in POST must carry the same value in its form. */
export const SIGN_IN_COOKIE = 'redline_review_sign_in';

/**
 * The sign-in form: the reviewer's token, sent once; `problem` says why the last one was refused. With
 * `confirm` (a link's token and whom it names) it asks to sign in as that reviewer, and nothing happens
 * until the reviewer presses the button: a link from another site cannot sign a browser in. `nonce` is the
 * value of the {@link SIGN_IN_COOKIE} cookie the same answer sets.
 */
export function signInPage({
  nonce,
  problem,
  confirm,
}: {
  nonce: string;
  problem?: string | undefined;
  confirm?: { readonly token: string; readonly reviewer: string };
}): string {
  if (confirm !== undefined)
    return page({
      title: 'Sign in',
      body: html`<h1>Sign in as <span id="confirm-reviewer">${confirm.reviewer}</span>?</h1>
        <form method="post" action="/sign-in">
          <input type="hidden" name="token" value="${confirm.token}" />
          <input type="hidden" name="nonce" value="${nonce}" />
          <p><button type="submit" id="confirm" autofocus>Sign in as ${confirm.reviewer}</button></p>
        </form>
        <p class="keys">The link you followed signs this browser in as ${confirm.reviewer}. Leave this page if you did not mean to.</p>`,
    });
  return page({
    title: 'Sign in',
    body: html`<h1>Sign in to the review queue</h1>
      ${problem === undefined ? '' : html`<p class="error" role="alert">${problem}</p>`}
      <form method="post" action="/sign-in">
        <input type="hidden" name="nonce" value="${nonce}" />
        <p>
          <label for="token">Reviewer token</label><br />
          <input id="token" name="token" type="password" autocomplete="current-password" required size="48" autofocus />
        </p>
        <p><button type="submit">Sign in</button></p>
      </form>
      <p class="keys">
        The token is the one <code>redline review serve</code> printed, or yours from <code>redline review token add NAME</code>.
      </p>`,
  });
}
