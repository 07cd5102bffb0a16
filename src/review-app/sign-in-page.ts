import { html } from './html.js';
import { page } from './layout.js';

/** The sign-in form: the reviewer's token, sent once; `problem` says why the last one was refused. */
export function signInPage(problem?: string): string {
  return page({
    title: 'Sign in',
    body: html`<h1>Sign in to the review queue</h1>
      ${problem === undefined ? '' : html`<p class="error" role="alert">${problem}</p>`}
      <form method="post" action="/sign-in">
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
