import { pidNamespace } from '../process/pid-namespace.js';
import type { Output } from './run-command.js';

/**
 * Before a command that runs programs: one line on stderr when they cannot run in PID namespaces here,
 * saying what that leaves to the process group and the environment marker (docs/architecture.md,
 * 'Processes'). Nothing when they can.
 */
export async function notePidNamespace({ progress }: Output): Promise<void> {
  const here = await pidNamespace();
  if (here.available) return;
  progress(
    `note: programs run without a PID namespace here (${here.reason}); outside sandbox: bwrap, a process that clears its environment can outlive its attempt, and a killed redline leaves what it started running`,
  );
}
