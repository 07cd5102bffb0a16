// The isolation redline used before `src/workspace/`, the reference `bench/workspace.ts` compares with: a
// fresh copy of the workspace for every check set of every attempt. Verbatim from
// `git show b1b7cb0:src/loop/sandbox.ts`, except that the candidate type is declared here as the slice of
// `Candidate` it reads, so that the reference does not move when the loop's types do.
import { cp, mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** The part of a candidate `createSandbox` reads: new content per path, `null` deletes. */
interface Candidate {
  readonly files: Readonly<Record<string, string | null>>;
}

/** Not copied into a candidate's copy: version-control data, redline's own records, installed packages (linked instead). */
const SKIPPED = new Set(['.git', '.redline', 'node_modules']);

/** An isolated copy of baseline + candidate in a temporary directory. */
export interface Sandbox {
  readonly dir: string;
  dispose(): Promise<void>;
}

/**
 * Copies the workspace into a fresh temporary directory and applies the candidate there.
 * The user's workspace is only read. A top-level `node_modules` is linked, not copied.
 */
export async function createSandbox(workspaceDir: string, candidate: Candidate): Promise<Sandbox> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'redline-'));
  try {
    await cp(workspaceDir, dir, {
      recursive: true,
      filter: (source) => !SKIPPED.has(path.basename(source)) || source === workspaceDir,
    });
    if (existsSync(path.join(workspaceDir, 'node_modules')))
      await symlink(path.join(workspaceDir, 'node_modules'), path.join(dir, 'node_modules'), 'dir');
    for (const [file, content] of Object.entries(candidate.files)) {
      const target = path.join(dir, file);
      if (content === null) {
        await rm(target, { force: true });
      } else {
        await mkdir(path.dirname(target), { recursive: true });
        await writeFile(target, content);
      }
    }
  } catch (error) {
    await rm(dir, { recursive: true, force: true });
    throw error;
  }
  return { dir, dispose: () => rm(dir, { recursive: true, force: true }) };
}
