import { RedlineError } from './redline-error.js';

/**
 * The frozen copy an MCP session's runs snapshot no longer holds the baseline the session took: something
 * wrote into it (a test weakened there would never meet the scope check). The session takes no more attempts.
 */
export class BaselineChangedError extends RedlineError {
  /** The manifest hash the session took, and the one the run found. */
  readonly expected: string;
  readonly found: string;

  constructor({ expected, found }: { expected: string; found: string }) {
    super({
      code: 'mcp.baseline_changed',
      message: `the session's frozen baseline was changed after the server started (manifest ${expected.slice(0, 12)}…, the run found ${found.slice(0, 12)}…): the run was stopped; restart the server to take a new baseline`,
    });
    this.name = 'BaselineChangedError';
    this.expected = expected;
    this.found = found;
  }
}
