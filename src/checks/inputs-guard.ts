import picomatch from 'picomatch';
import { finding, type Check } from '../core/check.js';
import type { Finding } from '../core/finding.js';
import { statusOf } from './check-span.js';

/** The reason code of a check whose inputs changed while it ran. */
export const INPUTS_CHANGED = 'check.inputs_changed';

/** Paths a `check.inputs_changed` message names; the rest are counted. */
const NAMED = 10;

/**
 * Which snapshot and candidate paths of the check copy changed since it was reset, except those
 * `isOutput` accepts, in path order ('' is the copy itself).
 */
export type ChangedInputs = (isOutput: (file: string) => boolean) => Promise<readonly string[]>;

function voided(check: Check, changed: readonly string[], findings: readonly Finding[]): Finding {
  const named = changed.slice(0, NAMED).map((file) => (file === '' ? '.' : file));
  const more = changed.length > NAMED ? ` and ${changed.length - NAMED} more` : '';
  return finding(
    check,
    'error',
    [INPUTS_CHANGED],
    `the check copy's snapshot or candidate paths changed while the check ran, so its result (${statusOf(findings)}) counts for nothing: ${named.join(', ')}${more} (paths a check rewrites itself are declared in its outputs)`,
    changed.length === 1 ? { location: { file: named[0] } } : {},
  );
}

/**
 * Judges, after each check of a set, whether the check saw exactly snapshot + candidate: when a path of
 * the copy changed since the reset — other than the declared `outputs` of this check and of the checks
 * that ran before it in the set — its findings are replaced by one `error` finding `check.inputs_changed`
 * naming the paths. A later check is thereby judged on what it saw: an earlier check's declared outputs
 * do not void it, any other change does, whenever it happened. A check that does not read the copy
 * (`readsCopy: false`) is taken as it is, without comparing.
 */
export function inputsGuard(changedInputs: ChangedInputs): (check: Check, findings: readonly Finding[]) => Promise<readonly Finding[]> {
  const declared: string[] = [];
  return async (check, findings) => {
    declared.push(...(check.outputs ?? []));
    if (check.readsCopy === false) return findings;
    const isOutput = declared.length === 0 ? () => false : picomatch([...declared], { dot: true });
    const changed = await changedInputs(isOutput);
    return changed.length === 0 ? findings : [voided(check, changed, findings)];
  };
}
