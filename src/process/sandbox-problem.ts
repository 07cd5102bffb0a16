import { runProcess } from './run-process.js';
import type { Sandbox } from './sandbox.js';
import { SandboxUnavailableError } from '../errors/sandbox-unavailable-error.js';

const USERNS_HINT =
  'bubblewrap needs root or unprivileged user namespaces: sysctl user.max_user_namespaces > 0, ' +
  'kernel.unprivileged_userns_clone=1 where it exists, and on Ubuntu 23.10+ ' +
  'kernel.apparmor_restrict_unprivileged_userns=0 or an AppArmor profile for bwrap';

/**
 * Why `sandbox` cannot run here, or undefined when it can: it starts `true` in such a sandbox (without
 * the writable directories, which may not exist yet). Call it before a run, to refuse a mission whose
 * processes could not start rather than fail every attempt.
 *
 * @example
 * await sandboxProblem({ kind: 'bwrap', writable: [], network: false });
 * // 'bubblewrap (bwrap) is not installed: apt-get install bubblewrap'
 */
export async function sandboxProblem(sandbox: Sandbox): Promise<string | undefined> {
  if (process.platform !== 'linux') return `the bwrap sandbox needs Linux, not ${process.platform}`;
  const probe = await runProcess({
    command: ['true'],
    cwd: '/',
    sandbox: { ...sandbox, writable: [] },
    timeoutMs: 10_000,
    outputCap: 64 * 1024,
  });
  if (probe.spawnError === undefined && probe.exitCode === 0) return undefined;
  const problem = probe.spawnError ?? `the sandbox probe failed with exit code ${probe.exitCode}: ${probe.stderr.trim()}`;
  // bwrap says "Creating new namespace failed" or "setting up uid map" when user namespaces are off.
  return /namespace|uid map|not permitted/i.test(problem) ? `${problem} (${USERNS_HINT})` : problem;
}

/** Throws a {@link SandboxUnavailableError} naming what is missing when `sandbox` cannot run here. */
export async function assertSandboxAvailable(sandbox: Sandbox): Promise<void> {
  const problem = await sandboxProblem(sandbox);
  if (problem !== undefined) throw new SandboxUnavailableError({ kind: sandbox.kind, problem });
}
