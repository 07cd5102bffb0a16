import { z } from 'zod';
import { guardSpecSchema, type GuardSpec, type GuardSpecInput } from '../guards/spec.js';
import { StudyOptionError } from './study-option-error.js';

/** A user-defined guard stack, run by the study as an extra strategy named `name`. */
export interface StudyPolicyInput {
  readonly name: string;
  /** Guards in mission-file syntax, in stack order (first stop wins); the study puts the attempt budget first. */
  readonly guards: readonly GuardSpecInput[];
}

/** A validated {@link StudyPolicyInput}, defaults filled in. */
export interface StudyPolicy {
  readonly name: string;
  readonly guards: readonly GuardSpec[];
}

const policySchema = z.strictObject({ name: z.string().min(1), guards: z.array(guardSpecSchema) });

const where = (path: readonly PropertyKey[]): string =>
  path.map((key) => (typeof key === 'number' ? `[${key}]` : `.${String(key)}`)).join('');

/**
 * Checks user policies: each `{ name, guards }` with guards in mission-file syntax, named apart from
 * `reserved` (the built-in strategies) and from each other. Throws {@link StudyOptionError} for option
 * `policies` naming the first thing wrong.
 */
export function resolvePolicies(policies: readonly StudyPolicyInput[] | undefined, reserved: readonly string[]): StudyPolicy[] {
  if (policies === undefined) return [];
  if (!Array.isArray(policies))
    throw new StudyOptionError({ option: 'policies', expected: 'a list of { name, guards }', got: typeof policies });
  const taken = new Set(reserved);
  return policies.map((policy: unknown, index) => {
    const parsed = policySchema.safeParse(policy);
    if (!parsed.success) {
      const issue = parsed.error.issues[0] as z.core.$ZodIssue;
      throw new StudyOptionError({
        option: 'policies',
        expected: '{ name, guards } with guards in mission-file syntax',
        got: `policies[${index}]${where(issue.path)}: ${issue.message}`,
      });
    }
    const { name, guards } = parsed.data as StudyPolicy;
    if (taken.has(name))
      throw new StudyOptionError({
        option: 'policies',
        expected: 'policies named apart from the built-in strategies and from each other',
        got: `policies[${index}].name ${JSON.stringify(name)}`,
      });
    taken.add(name);
    return { name, guards };
  });
}
