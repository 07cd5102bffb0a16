import picomatch from 'picomatch';

/** An unescaped `[`, `[!` or `[^` closed at once by `]`, with no later `]` to make the `]` a member. */
const EMPTY_CLASS = /(?:^|[^\\])\[[!^]?\][^\]]*$/;

/**
 * Why a scope glob can never match a candidate path, or undefined when it can. Candidate paths are
 * relative to the workspace, in normal form (`a/b.txt`: no leading `/`, no `.`, `..` or empty
 * segments, no trailing `/`), so a glob that needs anything else would block every attempt as a scope
 * violation instead of saying what is wrong with the mission.
 */
export function scopeGlobProblem(glob: string): string | undefined {
  const quoted = JSON.stringify(glob);
  // A leading `!` negates the glob (picomatch), unless it opens an extglob `!(…)`.
  const body = glob.startsWith('!') && !glob.startsWith('!(') ? glob.slice(1) : glob;
  if (body.startsWith('/') || /^[A-Za-z]:[\\/]/.test(body))
    return `${quoted} is an absolute path: scope globs are relative to the workspace (e.g. "src/**")`;
  const segments = body.replace(/^\.\//, '').split('/');
  if (segments.includes('..')) return `${quoted} leaves the workspace: a candidate path never has a ".." segment`;
  if (segments.includes('.')) return `${quoted} has a "." segment, which a candidate path never has`;
  if (segments.at(-1) === '') {
    const directory = body.replace(/\/+$/, '');
    return `${quoted} ends with "/", and candidate paths are files: "${directory.endsWith('**') ? directory : `${directory}/**`}" matches what is under the directory`;
  }
  if (segments.includes('')) return `${quoted} has an empty segment ("//"), which a candidate path never has`;
  if (EMPTY_CLASS.test(body))
    return `${quoted} has an empty character class ("[]" or "[!]"), which matches no character: write "\\[\\]" for the brackets themselves`;
  let matcher: RegExp;
  try {
    matcher = picomatch.makeRe(glob, { dot: true });
  } catch (error) {
    return `${quoted} is not a valid glob: ${(error as Error).message}`;
  }
  // picomatch compiles a glob that can match nothing (a lone trailing escape) to this.
  if (matcher.source === '$^') return `${quoted} matches no path (a trailing "\\" escapes nothing)`;
  return undefined;
}
