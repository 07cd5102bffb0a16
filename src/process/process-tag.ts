import { randomBytes } from 'node:crypto';

/** Prefix of the environment variables by which runProcess marks the processes it starts. */
export const PROCESS_TAG_PREFIX = 'REDLINE_PROCESS_TAG_';

/**
 * A fresh marker: the name of an environment variable that no other process carries. The name, not
 * the value, is unique so that the markers of nested runProcess calls add up instead of replacing
 * one another.
 *
 * @example
 * newProcessTag(); // 'REDLINE_PROCESS_TAG_3f9c…'
 */
export function newProcessTag(): string {
  return `${PROCESS_TAG_PREFIX}${randomBytes(16).toString('hex')}`;
}

/**
 * `env` with the marker `tag` set. It also keeps the markers redline itself was started with, even
 * when the caller passes an environment of its own: a redline that runs inside an outer redline's
 * process must leave its children findable by the outer one.
 */
export function taggedEnv(env: NodeJS.ProcessEnv, tag: string): NodeJS.ProcessEnv {
  const outer = Object.entries(process.env).filter(([key]) => key.startsWith(PROCESS_TAG_PREFIX));
  // The marker goes first: environ is read from its start, and a huge environment is read in full only
  // when the first block does not hold the marker.
  return { [tag]: '1', ...Object.fromEntries(outer), ...env };
}
