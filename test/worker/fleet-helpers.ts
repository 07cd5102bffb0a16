import { spawn, type ChildProcess } from 'node:child_process';
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';

import path from 'node:path';
import pg from 'pg';
import { ROOT } from '../cli/redline.js';

/** The test server; each test file works in schemas of its own. */
export const SERVER = 'postgres://postgres@127.0.0.1:5432/test';

/** A fresh fleet location (`?schema=`), and a drop of its schemas (ledger and job queue) for the end. */
export function fleetSchema(prefix: string): { url: string; schema: string; drop: () => Promise<void> } {
  const schema = `${prefix}_${process.pid}_${randomBytes(3).toString('hex')}`;
  return {
    url: `${SERVER}?schema=${schema}`,
    schema,
    drop: async () => {
      const client = new pg.Client({ connectionString: SERVER });
      await client.connect();
      try {
        await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
        await client.query(`DROP SCHEMA IF EXISTS "${schema}_jobs" CASCADE`);
      } finally {
        await client.end();
      }
    },
  };
}

export { answerMission } from '../helpers/answer-mission.js';

/**
 * A submitter's key pair in `dir` (`<name>.pem`, `<name>.pub`) and the arguments that use it: `submit`
 * signs with `--signing-key`, a worker trusts it with `--trust-key`.
 */
export function submitterKey(
  dir: string,
  name = 'submitter',
): { sign: string[]; trust: string[]; privateFile: string; publicFile: string } {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  const privateFile = path.join(dir, `${name}.pem`);
  const publicFile = path.join(dir, `${name}.pub`);
  writeFileSync(privateFile, privateKey.export({ type: 'pkcs8', format: 'pem' }), { mode: 0o600 });
  writeFileSync(publicFile, publicKey.export({ type: 'spki', format: 'pem' }));
  return { sign: ['--signing-key', privateFile], trust: ['--trust-key', publicFile], privateFile, publicFile };
}

/** A worker process of the built CLI (`npm run build -- --noCheck` first); its stderr is kept. */
export function startWorker(args: readonly string[], env: NodeJS.ProcessEnv = process.env): ChildProcess & { log: string[] } {
  const child = spawn(process.execPath, [path.join(ROOT, 'bin/redline.js'), 'worker', ...args], {
    cwd: ROOT,
    env,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const log: string[] = [];
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => log.push(chunk));
  return Object.assign(child, { log });
}

/** Resolves with the exit code (or signal) once `child` has ended. */
export function ended(child: ChildProcess): Promise<number | string | null> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(child.exitCode ?? child.signalCode);
  return new Promise((resolve) => child.once('exit', (code, signal) => resolve(code ?? signal)));
}
