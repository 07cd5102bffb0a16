/** One file of a {@link unifiedDiff}: its bytes before and after (null = absent). */
export interface FileChange {
  /** Relative path with POSIX separators, the same on both sides. */
  readonly file: string;
  readonly before: Uint8Array | null;
  readonly after: Uint8Array | null;
  /** The mode a deleted file had, for `deleted file mode`. @default 0o100644 */
  readonly mode?: number;
}

/** Lines of unchanged context around each change. */
const CONTEXT = 3;
/**
 * Edit distance beyond which the middle of a file (after its common head and tail) is shown as removed
 * whole and added whole: still a correct patch, and the search's memory stays at O(MAX_EDITS²).
 */
const MAX_EDITS = 2_000;

type Op = readonly [sign: ' ' | '-' | '+', line: string];

/** The lines of `text`, each with its `\n`; only the last may lack one. */
function linesOf(text: string): string[] {
  const lines = text.split('\n').map((line) => `${line}\n`);
  const last = (lines.pop() as string).slice(0, -1);
  if (last !== '') lines.push(last);
  return lines;
}

/** Myers' shortest edit script between `a` and `b` (line ids), or undefined beyond {@link MAX_EDITS}. */
function shortestEdit(a: readonly number[], b: readonly number[]): ('=' | '-' | '+')[] | undefined {
  const n = a.length;
  const m = b.length;
  const offset = n + m + 1;
  const v = new Int32Array(2 * offset + 1);
  // trace[d] holds the furthest x per diagonal k ∈ [-d, d] as they stood before step d.
  const trace: Int32Array[] = [];
  let found = -1;
  for (let d = 0; d <= Math.min(n + m, MAX_EDITS) && found < 0; d += 1) {
    trace.push(v.slice(offset - d, offset + d + 1));
    for (let k = -d; k <= d; k += 2) {
      let x =
        k === -d || (k !== d && (v[offset + k - 1] as number) < (v[offset + k + 1] as number))
          ? (v[offset + k + 1] as number)
          : (v[offset + k - 1] as number) + 1;
      let y = x - k;
      while (x < n && y < m && a[x] === b[y]) {
        x += 1;
        y += 1;
      }
      v[offset + k] = x;
      if (x >= n && y >= m) {
        found = d;
        break;
      }
    }
  }
  if (found < 0) return undefined;
  const script: ('=' | '-' | '+')[] = [];
  let x = n;
  let y = m;
  for (let d = found; d > 0; d -= 1) {
    const previous = trace[d] as Int32Array;
    const k = x - y;
    const down = k === -d || (k !== d && (previous[k - 1 + d] as number) < (previous[k + 1 + d] as number));
    const fromK = down ? k + 1 : k - 1;
    const fromX = previous[fromK + d] as number;
    const fromY = fromX - fromK;
    for (; x > fromX && y > fromY; x -= 1, y -= 1) script.push('=');
    script.push(down ? '+' : '-');
    if (down) y -= 1;
    else x -= 1;
  }
  for (; x > 0; x -= 1) script.push('=');
  return script.reverse();
}

/** The edit from `before` to `after` line by line: common head, shortest edit of the middle, common tail. */
function edit(before: readonly string[], after: readonly string[]): Op[] {
  let head = 0;
  while (head < before.length && head < after.length && before[head] === after[head]) head += 1;
  let tail = 0;
  while (tail < before.length - head && tail < after.length - head && before[before.length - 1 - tail] === after[after.length - 1 - tail])
    tail += 1;
  const oldMiddle = before.slice(head, before.length - tail);
  const newMiddle = after.slice(head, after.length - tail);
  const ids = new Map<string, number>();
  const id = (line: string): number => ids.get(line) ?? (ids.set(line, ids.size), ids.size - 1);
  const script = shortestEdit(oldMiddle.map(id), newMiddle.map(id)) ?? [
    ...oldMiddle.map(() => '-' as const),
    ...newMiddle.map(() => '+' as const),
  ];
  const ops: Op[] = before.slice(0, head).map((line) => [' ', line]);
  let i = 0;
  let j = 0;
  for (const step of script) {
    if (step === '+') ops.push(['+', newMiddle[j++] as string]);
    else {
      ops.push([step === '=' ? ' ' : '-', oldMiddle[i++] as string]);
      if (step === '=') j += 1;
    }
  }
  for (const line of before.slice(before.length - tail)) ops.push([' ', line]);
  return ops;
}

const range = (start: number, count: number): string => (count === 1 ? `${start}` : `${count === 0 ? start - 1 : start},${count}`);

/** The hunks of an edit, with {@link CONTEXT} lines around each change; nearby changes share a hunk. */
function hunks(ops: readonly Op[]): string {
  const changed = ops.flatMap(([sign], index) => (sign === ' ' ? [] : [index]));
  let out = '';
  let group = 0;
  while (group < changed.length) {
    let last = group;
    while (last + 1 < changed.length && (changed[last + 1] as number) - (changed[last] as number) <= 2 * CONTEXT + 1) last += 1;
    const start = Math.max(0, (changed[group] as number) - CONTEXT);
    const end = Math.min(ops.length, (changed[last] as number) + CONTEXT + 1);
    const before = ops.slice(0, start);
    const inside = ops.slice(start, end);
    const count = (list: readonly Op[], sign: '-' | '+'): number => list.filter(([s]) => s === ' ' || s === sign).length;
    out += `@@ -${range(count(before, '-') + 1, count(inside, '-'))} +${range(count(before, '+') + 1, count(inside, '+'))} @@\n`;
    for (const [sign, line] of inside) out += line.endsWith('\n') ? `${sign}${line}` : `${sign}${line}\n\\ No newline at end of file\n`;
    group = last + 1;
  }
  return out;
}

const ESCAPES: Readonly<Record<number, string>> = {
  7: '\\a',
  8: '\\b',
  9: '\\t',
  10: '\\n',
  11: '\\v',
  12: '\\f',
  13: '\\r',
  34: '\\"',
  92: '\\\\',
};

/** `prefix` + `file` as git writes a name in a patch: C-quoted (octal for bytes outside printable ASCII) when needed. */
export function gitPathName(prefix: string, file: string): string {
  const bytes = Buffer.from(`${prefix}${file}`, 'utf8');
  if (bytes.every((byte) => byte >= 0x20 && byte < 0x7f && byte !== 0x22 && byte !== 0x5c)) return `${prefix}${file}`;
  let quoted = '"';
  for (const byte of bytes)
    quoted += ESCAPES[byte] ?? (byte >= 0x20 && byte < 0x7f ? String.fromCharCode(byte) : `\\${byte.toString(8).padStart(3, '0')}`);
  return `${quoted}"`;
}

/** One file's part of the patch, as a latin1 string (one char per byte), or '' when nothing changed. */
function fileDiff({ file, before, after, mode = 0o100644 }: FileChange): string {
  const text = (bytes: Uint8Array | null): string => (bytes === null ? '' : Buffer.from(bytes).toString('latin1'));
  if (before !== null && after !== null && Buffer.compare(before, after) === 0) return '';
  if (before === null && after === null) return '';
  const a = gitPathName('a/', file);
  const b = gitPathName('b/', file);
  // git ends a file name that holds a space with a tab on the ---/+++ lines, so trailing text cannot blur it.
  const tab = file.includes(' ') ? '\t' : '';
  let out = `diff --git ${a} ${b}\n`;
  if (before === null) out += 'new file mode 100644\n';
  if (after === null) out += `deleted file mode ${mode.toString(8)}\n`;
  const body = hunks(edit(linesOf(text(before)), linesOf(text(after))));
  if (body === '') return out;
  return `${out}--- ${before === null ? '/dev/null' : `${a}${tab}`}\n+++ ${after === null ? '/dev/null' : `${b}${tab}`}\n${body}`;
}

/**
 * A git-style unified diff of `changes` (in their order), byte for byte: CRLF, a missing final newline
 * and bytes outside UTF-8 survive; `git apply` in the directory holding the `before` side applies it.
 * @example
 * unifiedDiff([{ file: 'a.txt', before: Buffer.from('x\n'), after: Buffer.from('y\n') }]).toString()
 * // 'diff --git a/a.txt b/a.txt\n--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-x\n+y\n'
 */
export function unifiedDiff(changes: readonly FileChange[]): Buffer {
  return Buffer.from(changes.map(fileDiff).join(''), 'latin1');
}
