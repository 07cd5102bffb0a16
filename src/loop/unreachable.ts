import { scopeMatcher } from '../checks/scope-check.js';
import type { StopVerdict } from '../guards/guard.js';
import type { Mission } from '../mission/mission.js';
import { normalPath } from '../core/candidate.js';
import { malformedPath } from '../workspace/path-rules.js';
import { StopReason } from '../core/outcome.js';

/** The name the runtime's reachability test gives its stop verdict (the verdict's `guard`). */
export const REACHABILITY_GUARD = 'reachability';

export interface UnreachableOptions {
  readonly mission: Mission;
  /** Whether the run's baseline snapshot holds this workspace path. */
  readonly inBaseline: (file: string) => boolean;
}

/**
 * The `blocked / unreachable` verdict of a mission with a workspace, decided before any check runs, or
 * undefined. It names each required check that fails on every candidate the scope allows, because the
 * file it needs is outside the scope (no candidate may write it) and absent from the baseline:
 * - a declared output (the built-in `declared-outputs` check needs the file);
 * - the `file` of a required `json-schema` check that no program-running check precedes (a check that runs
 *   a program first could write the file into the copy: that case is left to the loop).
 * Anything else — what a program of a check reads, a file present on the baseline — is not decided here.
 */
export function unreachableVerdict({ mission, inBaseline }: UnreachableOptions): StopVerdict | undefined {
  if (mission.workspaceDir === undefined) return undefined;
  const inScope = scopeMatcher(mission.scope);
  const outOfReach = (file: string): boolean =>
    malformedPath(file) === undefined && !inScope(normalPath(file)) && !inBaseline(normalPath(file));
  const scope = mission.scope.join(', ');
  const reasons = mission.declaredOutputs
    .filter(outOfReach)
    .map((file) => `declared output ${file} is outside the scope (${scope}) and not in the baseline: no candidate can produce it`);
  mission.checks.forEach((spec, index) => {
    if (spec.kind !== 'json-schema' || !spec.required || spec.file === undefined || !outOfReach(spec.file)) return;
    // Fast checks run before promotion checks, each stage in mission order.
    const before = mission.checks.filter(
      (other, at) => (other.stage === spec.stage && at < index) || (spec.stage === 'promotion' && other.stage === 'fast'),
    );
    if (before.every((other) => other.kind === 'json-schema'))
      reasons.push(`required check ${spec.name} reads ${spec.file}, which is outside the scope (${scope}) and not in the baseline`);
  });
  if (reasons.length === 0) return undefined;
  return { guard: REACHABILITY_GUARD, reason: StopReason.unreachable, outcome: 'blocked', detail: reasons.join('; ') };
}
