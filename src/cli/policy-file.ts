import { readFile } from 'node:fs/promises';
import { parse as parseYaml } from 'yaml';
import { MissionError } from '../errors/mission-error.js';
import { policyListSchema, replayPolicySchema, type ReplayPolicy } from '../analysis/replay.js';
import { toMissionIssues } from '../mission/issues.js';

/**
 * Reads a policy file (`.json`, else YAML): `{ name, guards }` or `{ policies: [{ name, guards }, …] }`,
 * guards in mission-file syntax. Throws a {@link MissionError} naming the file and each bad path.
 *
 * @example
 * await loadPolicies('policies.yaml') // [{ name: 'confirm-2', guards: [{ confirm: { k: 2, bar: 0.8 } }] }]
 */
export async function loadPolicies(file: string): Promise<ReplayPolicy[]> {
  let data: unknown;
  try {
    const text = await readFile(file, 'utf8');
    data = file.endsWith('.json') ? JSON.parse(text) : parseYaml(text);
  } catch (error) {
    throw new MissionError({
      source: file,
      what: 'policy file',
      issues: [
        {
          path: '(root)',
          expected: 'a readable JSON or YAML policy file',
          got: 'an error',
          message: (error as Error).message.split('\n')[0] ?? '',
        },
      ],
    });
  }
  // The shape is picked by the `policies` key, so that a problem is named where it is (`policies[1].guards[0]`),
  // not as a document that matches neither shape.
  if (typeof data === 'object' && data !== null && 'policies' in data) {
    const list = policyListSchema.safeParse(data, { reportInput: true });
    if (!list.success) throw new MissionError({ source: file, what: 'policy file', issues: toMissionIssues(list.error.issues) });
    return list.data.policies;
  }
  const one = replayPolicySchema.safeParse(data, { reportInput: true });
  if (!one.success) throw new MissionError({ source: file, what: 'policy file', issues: toMissionIssues(one.error.issues) });
  return [one.data];
}
