/** How the brief page marks one line of a unified diff. */
export type DiffLineClass = 'diff-meta' | 'diff-hunk' | 'diff-add' | 'diff-del' | 'diff-context';

const HUNK = /^@@ -\d+(?:,(\d+))? \+\d+(?:,(\d+))? @@/;
const HEADER = /^(diff |index |--- |\+\+\+ |new file mode |deleted file mode |old mode |new mode |similarity |rename |copy |Binary files )/;

/**
 * Marks the lines of a unified diff, given in order. Inside a hunk each line is read by the counts its
 * `@@` header gives, so a removed line that reads `-- x` or `++ y` is a removal, not a file header; outside
 * one (a hand-made diff whose counts are off) the first character decides.
 * @example
 * const classOf = diffClassifier();
 * ['--- a/q.sql', '+++ b/q.sql', '@@ -1 +1 @@', '--- old', '+-- new'].map(classOf)
 * // ['diff-meta', 'diff-meta', 'diff-hunk', 'diff-del', 'diff-add']
 */
export function diffClassifier(): (line: string) => DiffLineClass {
  let oldLeft = 0;
  let newLeft = 0;
  return (line) => {
    if (line.startsWith('\\')) return 'diff-meta';
    if (oldLeft > 0 || newLeft > 0) {
      if (line.startsWith('+') && newLeft > 0) {
        newLeft -= 1;
        return 'diff-add';
      }
      if (line.startsWith('-') && oldLeft > 0) {
        oldLeft -= 1;
        return 'diff-del';
      }
      if ((line.startsWith(' ') || line === '') && oldLeft > 0 && newLeft > 0) {
        oldLeft -= 1;
        newLeft -= 1;
        return 'diff-context';
      }
      // The hunk's counts do not fit this line: it is read as a header or by its first character.
      oldLeft = 0;
      newLeft = 0;
    }
    const hunk = HUNK.exec(line);
    if (hunk !== null) {
      oldLeft = Number(hunk[1] ?? 1);
      newLeft = Number(hunk[2] ?? 1);
      return 'diff-hunk';
    }
    if (line.startsWith('@@')) return 'diff-hunk';
    if (HEADER.test(line)) return 'diff-meta';
    if (line.startsWith('+')) return 'diff-add';
    if (line.startsWith('-')) return 'diff-del';
    return 'diff-context';
  };
}
