import { readlinkSync } from 'node:fs';
import path from 'node:path';
import { ProposerError } from '../errors/proposer-error.js';
import { readNoFollow } from '../workspace/safe-fs.js';
import type { RunWorkspace } from '../workspace/run-workspace.js';
import { lstatOrNothing } from '../workspace/stamp.js';

/** Bytes of changed file content one submit or check may carry, as the agent proposer's `maxChangeBytes`. */
export const MAX_CHANGE_BYTES = 16 * 1024 * 1024;

/**
 * What the agent changed in the live workspace since the session's snapshot (its baseline), as candidate
 * files: changed and created files with their text, deleted files as `null`; ignored paths are left out,
 * and nothing is ever followed through a symlink. Like the agent proposer's changes, a created, changed or
 * removed symlink, a file that is not UTF-8 and a file name that is not UTF-8 cannot be a candidate
 * (`proposer.bad_output`), and more than
 * `maxBytes` of changed content is `proposer.output_cap`.
 * @throws {ProposerError} when the working copy cannot be a candidate.
 */
export async function workingCopyChanges(
  session: RunWorkspace,
  { maxBytes = MAX_CHANGE_BYTES }: { maxBytes?: number } = {},
): Promise<Record<string, string | null>> {
  const { workspace, manifest } = session.snapshot;
  // A map: a file named like an Object member (`__proto__`) is a key like any other.
  const files = new Map<string, string | null>();
  let bytesLeft = maxBytes;
  const refuse = (message: string): never => {
    throw new ProposerError({ code: 'proposer.bad_output', message: `the working copy cannot be a candidate: ${message}` });
  };
  for (const file of await session.liveChanges()) {
    const target = path.join(workspace, file);
    const info = lstatOrNothing(target);
    const before = manifest.get(file);
    if (info?.isSymbolicLink() === true)
      refuse(`${file} is a symlink to ${JSON.stringify(readlinkSync(target))}; a candidate holds files only`);
    if (before?.type === 'symlink') refuse(`the symlink ${file} was changed or removed; a candidate holds files only`);
    if (info === undefined && before === undefined && file.includes('\uFFFD'))
      refuse(`${JSON.stringify(file)} is not a UTF-8 file name; a candidate's paths are UTF-8`);
    if (info === undefined || !info.isFile()) {
      if (before?.type === 'file') files.set(file, null);
      continue;
    }
    bytesLeft -= info.size;
    if (bytesLeft < 0)
      throw new ProposerError({ code: 'proposer.output_cap', message: `the changed files hold more than ${maxBytes} bytes (at ${file})` });
    const bytes = readNoFollow(target);
    const text = bytes.toString('utf8');
    if (!Buffer.from(text, 'utf8').equals(bytes)) refuse(`${file} is not UTF-8 text; a candidate holds text files only`);
    files.set(file, text);
  }
  return Object.fromEntries(files);
}
