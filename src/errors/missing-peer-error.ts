import { RedlineError } from './redline-error.js';

/**
 * An optional peer dependency (`pg`, `vega`) is not installed, and what was asked needs it. Redline loads
 * each only where it is used, so everything else works without it.
 */
export class MissingPeerError extends RedlineError {
  /** The npm package to install. */
  readonly packageName: string;
  /** What needs it, as in "install pg to use a postgres:// ledger". */
  readonly purpose: string;

  constructor({ packageName, purpose, cause }: { packageName: string; purpose: string; cause?: unknown }) {
    super({
      code: 'dependency.missing',
      message: `install ${packageName} to ${purpose} (npm i ${packageName}): it is an optional peer dependency of redline-loop`,
      cause,
    });
    this.name = 'MissingPeerError';
    this.packageName = packageName;
    this.purpose = purpose;
  }

  /**
   * `import(packageName)`, turning "package not found" into a `MissingPeerError`; any other failure (a
   * broken install) is rethrown as it is.
   * @example
   * const { default: pg } = await MissingPeerError.load(() => import('pg'), { packageName: 'pg', purpose: 'use a postgres:// ledger' });
   */
  static async load<T>(load: () => Promise<T>, { packageName, purpose }: { packageName: string; purpose: string }): Promise<T> {
    try {
      return await load();
    } catch (error) {
      const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
      if (code === 'ERR_MODULE_NOT_FOUND' && typeof message === 'string' && message.includes(`'${packageName}'`))
        throw new MissingPeerError({ packageName, purpose, cause: error });
      throw error;
    }
  }
}
