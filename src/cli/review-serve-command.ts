import os from 'node:os';
import { once } from 'node:events';
import { ledgerFileGuard } from '../ledger/ledger-file.js';
import { localPublicKeys } from '../ledger/signing-key.js';
import { displayLocation, expectLedgerAt, ledgerLocation, openLedger } from '../ledger/open-ledger.js';
import { parseDuration } from '../mission/duration.js';
import { openReviewQueue } from '../review/open-review-queue.js';
import { journalSigner } from './with-review-queue.js';
import { generateToken, hashToken } from '../review-app/tokens.js';
import { isLoopback, serveReviewApp } from '../review-app/serve-review-app.js';
import type { Output } from './run-command.js';
import { clean, shellArg } from './terminal-text.js';

/** Environment variable holding the start token instead of a generated one. */
export const REVIEW_TOKEN_ENV = 'REDLINE_REVIEW_TOKEN';

export interface ReviewServeOptions {
  readonly port: number;
  readonly host: string;
  readonly reviewer?: string;
  readonly lease: string;
  readonly ledger?: string;
  /** Names the server is reached by besides its bind address (a proxy's, a machine's). */
  readonly hostName?: readonly string[];
  /** Live claims one reviewer may hold at once. */
  readonly claims?: number;
}

/** How long the printed sign-in link works, if no one uses it first. */
export const START_LINK_TTL_MS = 10 * 60_000;

/**
 * `redline review serve` and `redline serve`: the reviewer web app over the queue and ledger, with the
 * runs pages, until SIGINT or SIGTERM. Prints the address and a start token (generated, or
 * `$REDLINE_REVIEW_TOKEN`) that signs in as `--reviewer`; reviewers added with `redline review token add`
 * sign in with their own. `home`: where a sign-in lands (`redline serve`: the runs).
 */
export async function reviewServeCommand(
  { port, host, reviewer = os.userInfo().username || 'reviewer', lease, ledger, hostName = [], claims = 1 }: ReviewServeOptions,
  { print, progress }: Output,
  { home = '/' }: { readonly home?: '/' | '/runs' } = {},
): Promise<number> {
  const leaseMs = parseDuration(lease);
  if (leaseMs === undefined) throw new TypeError(`Expected --lease to be a duration such as 90s, 15m or 1h, got ${JSON.stringify(lease)}`);
  const configured = process.env[REVIEW_TOKEN_ENV];
  if (configured !== undefined && configured.length < 16)
    throw new TypeError(`Expected $${REVIEW_TOKEN_ENV} to have at least 16 characters, got ${configured.length}`);
  const location = ledgerLocation(ledger, process.cwd());
  await expectLedgerAt(location);
  const queue = await openReviewQueue(location, await journalSigner(location));
  const runs = await openLedger(location, { readOnly: true });
  try {
    // Seal signatures on the run page are checked against the keys `redline ledger verify` uses by default.
    const { keys: publicKeys } = await localPublicKeys({ location });
    // The file opened above must stay the file at its path: one deleted or replaced takes no verdicts (said once on stderr).
    const moved = await ledgerFileGuard(location);
    let said = false;
    const storageProblem = async (): Promise<string | undefined> => {
      const problem = await moved();
      if (problem !== undefined && !said) {
        said = true;
        progress(clean(`review app: taking no more verdicts: ${problem}; restart \`redline review serve\` on the ledger`));
      }
      return problem === undefined ? undefined : clean(problem);
    };
    const startToken = configured ?? generateToken();
    // A generated token is printed in a link: it signs in once, within START_LINK_TTL_MS. A chosen one ($REDLINE_REVIEW_TOKEN) lasts.
    const server = await serveReviewApp({
      queue,
      ledger: runs,
      host,
      port,
      startToken,
      startReviewer: reviewer,
      leaseMs,
      storageProblem,
      claimsPerReviewer: claims,
      hostNames: hostName,
      publicKeys,
      home,
      ...(configured === undefined ? { startTokenOnce: true, startTokenTtlMs: START_LINK_TTL_MS } : {}),
    });
    if (!isLoopback(host))
      progress(
        `warning: serving on ${clean(host)}, beyond this machine, over plain HTTP: put it behind HTTPS before anyone signs in from elsewhere`,
      );
    print(`${home === '/runs' ? 'runs and review app' : 'review app'} for ${clean(displayLocation(location))} at ${server.url}`);
    print(
      configured === undefined
        ? `sign in as ${clean(reviewer)} (this link works once, for 10 minutes): ${server.url}/sign-in?token=${startToken}`
        : `sign in as ${clean(reviewer)} with the token in $${REVIEW_TOKEN_ENV}: ${server.url}/sign-in`,
    );
    print('reviewers added with `redline review token add NAME` sign in with their own token; Ctrl-C stops');
    await Promise.race([once(process, 'SIGINT'), once(process, 'SIGTERM')]);
    await server.close();
    return 0;
  } finally {
    await runs.close();
    await queue.close();
  }
}

/** `redline review token add NAME`: a new token for a reviewer, printed once; only its hash is stored with the queue. */
export async function reviewTokenAddCommand(name: string, { ledger }: { ledger?: string }, { print }: Output): Promise<number> {
  const location = ledgerLocation(ledger, process.cwd());
  await expectLedgerAt(location);
  const queue = await openReviewQueue(location, await journalSigner(location));
  try {
    const token = generateToken();
    await queue.addReviewer(name, hashToken(token));
    print(`token for ${clean(name)} (shown once; a new one for the same name replaces it):`);
    print(token);
    print(
      `sign in at the address \`redline review serve${ledger === undefined ? '' : ` --ledger ${shellArg(clean(displayLocation(ledger)))}`}\` prints`,
    );
    return 0;
  } finally {
    await queue.close();
  }
}
