import type { Finding } from '../core/finding.js';

/** `text` in a Markdown code fence longer than any backtick run inside it. */
export function fenced(text: string): string {
  const longest = Math.max(0, ...Array.from(text.matchAll(/`+/g), (match) => match[0].length));
  const fence = '`'.repeat(Math.max(3, longest + 1));
  return `${fence}\n${text}${text.endsWith('\n') ? '' : '\n'}${fence}`;
}

/** A file as a Markdown heading and fenced content. */
export function fileBlock(file: string, content: string): string {
  return `### ${file}\n${fenced(content)}`;
}

/** One line per finding: check, status, reason codes, message and location. */
export function findingLine(finding: Finding): string {
  const { file, line, test } = finding.location ?? {};
  const where = [
    file === undefined ? undefined : line === undefined ? file : `${file}:${line}`,
    test === undefined ? undefined : `test "${test}"`,
  ].filter(Boolean);
  const codes = finding.reasonCodes.length === 0 ? '' : ` ${finding.reasonCodes.join(', ')}`;
  return `- ${finding.check} [${finding.status}]${codes}: ${finding.message}${where.length === 0 ? '' : ` (at ${where.join(', ')})`}`;
}

/**
 * Renders changed files (`null` = deleted) in order while their content fits in `maxBytes`; names the
 * ones that do not fit.
 */
export function changedFileBlocks(
  files: Readonly<Record<string, string | null>>,
  maxBytes: number,
): { blocks: string[]; leftOut: string[]; bytesLeft: number } {
  const blocks: string[] = [];
  const leftOut: string[] = [];
  let bytesLeft = maxBytes;
  for (const [file, content] of Object.entries(files)) {
    if (content === null) blocks.push(`### ${file}\n(deleted)`);
    else if (Buffer.byteLength(content) > bytesLeft) leftOut.push(file);
    else {
      bytesLeft -= Buffer.byteLength(content);
      blocks.push(fileBlock(file, content));
    }
  }
  return { blocks, leftOut, bytesLeft };
}
