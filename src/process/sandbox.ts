/**
 * An OS sandbox for a process, on Linux with bubblewrap. The program sees the whole file system
 * read-only (/tmp included) except `writable` and a private temporary directory (TMPDIR, TMP and TEMP
 * name it; removed after the program), its own /dev and /proc, its own PID, IPC and UTS namespaces and,
 * unless `network` is true, no network at all (only a loopback of its own).
 * Every process it starts dies with the sandbox, whatever it does (setsid, double fork, `env -i`).
 *
 * bubblewrap needs root, or unprivileged user namespaces: `user.max_user_namespaces` above 0,
 * `kernel.unprivileged_userns_clone=1` on kernels that have it (older Debian), and on Ubuntu 23.10+
 * `kernel.apparmor_restrict_unprivileged_userns=0` or an AppArmor profile that allows bwrap.
 * Check with {@link sandboxProblem} before a run.
 *
 * @example
 * { kind: 'bwrap', writable: [workdir], network: false }
 */
export interface BwrapSandbox {
  readonly kind: 'bwrap';
  /**
   * Directories the program may write, bound at the same path inside the sandbox; relative ones
   * resolve against the process's `cwd`. Each must exist.
   */
  readonly writable: readonly string[];
  /** Whether the program may reach the network (the host's network namespace). */
  readonly network: boolean;
  /**
   * The bwrap executable.
   * @default '/usr/bin/bwrap', else `bwrap` found on PATH
   */
  readonly bwrapPath?: string;
}

/** The sandboxes runProcess knows; one kind today. */
export type Sandbox = BwrapSandbox;
