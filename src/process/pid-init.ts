import os from 'node:os';

/** The descriptor on which the init reports how the program ended (a pipe of runProcess's). */
export const INIT_STATUS_FD = 3;

/** Prefix under which {@link initEnv} hands Perl's own variables past the init, which puts them back. */
const KEPT = 'REDLINE_PERL_';

/**
 * The first process of the namespace, in Perl (every Debian, Ubuntu, Fedora and RHEL system has it). It
 * starts the program as its child, reaps every orphan of the namespace, and when the program ends writes
 * its wait status (`status N`, or `exec ERRNO` when it could not start) on descriptor 3, then exits,
 * which ends everything else in the namespace. The program is not the namespace's first process, which
 * the kernel shields from signals it has no handler for: `kill $$`, `raise()` and `abort()` work as
 * anywhere; and the wait status keeps the signal that a wrapper's own exit code would turn into 128 + N.
 */
export const PID_INIT = [
  // Perl's own variables (PERL5OPT can load modules or the debugger) reach it renamed; the program gets them back.
  'delete $ENV{PERL_BADLANG};',
  `$ENV{substr $_, ${KEPT.length}} = delete $ENV{$_} for grep /^${KEPT}/, keys %ENV;`,
  `open my $status, ">&=", ${INIT_STATUS_FD} or die "status: $!\\n";`,
  // F_SETFD, FD_CLOEXEC: the program cannot write the status line itself.
  'fcntl $status, 2, 1;',
  'defined(my $program = fork) or die "fork: $!\\n";',
  'if (!$program) { exec { $ARGV[0] } @ARGV; syswrite $status, "exec " . ($! + 0) . "\\n"; exit 127 }',
  'while ((my $pid = waitpid -1, 0) > 0) { next if $pid != $program; syswrite $status, "status $?\\n"; exit 0 }',
].join(' ');

/**
 * `env` for the init: Perl's own variables renamed (the init restores them for the program) and Perl's
 * locale warning off, which a locale that is set but not installed would print on every start.
 */
export function initEnv(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const entries = Object.entries(env).map(([name, value]) => [name.startsWith('PERL') ? `${KEPT}${name}` : name, value]);
  return { ...Object.fromEntries(entries), PERL_BADLANG: '0' };
}

/** How the program ended, as the init reported it. */
export type InitReport = { readonly exitCode: number | null; readonly signal: NodeJS.Signals | null } | { readonly spawnError: string };

/** The first name of `value` in `table` (SIGABRT before SIGIOT, as node names them). */
function nameOf<T extends string>(table: Readonly<Record<string, number>>, value: number): T | undefined {
  return Object.entries(table).find(([, number]) => number === value)?.[0] as T | undefined;
}

/**
 * The report the init wrote on its status descriptor, or undefined when it wrote none (it never ran,
 * or was killed first). A program that could not start reports the errno's name, as `spawn` does.
 *
 * @example
 * initReport('status 2816\n'); // { exitCode: 11, signal: null }
 * initReport('status 11\n'); // { exitCode: null, signal: 'SIGSEGV' }
 * initReport('exec 2\nstatus 32512\n'); // { spawnError: 'ENOENT' }
 */
export function initReport(text: string): InitReport | undefined {
  const failed = /^exec (\d+)$/m.exec(text);
  if (failed !== null) {
    const errno = Number(failed[1]);
    return { spawnError: nameOf(os.constants.errno, errno) ?? `errno ${errno}` };
  }
  const status = /^status (\d+)$/m.exec(text);
  if (status === null) return undefined;
  const raw = Number(status[1]);
  const signal = raw & 0x7f;
  if (signal === 0) return { exitCode: (raw >> 8) & 0xff, signal: null };
  return { exitCode: null, signal: nameOf<NodeJS.Signals>(os.constants.signals, signal) ?? null };
}
