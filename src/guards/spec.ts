import { z } from 'zod';
import { OUTCOMES, type Outcome } from '../core/outcome.js';
import { adaptive } from './adaptive.js';
import type { AdaptivePriors } from './adaptive-priors.js';
import { allOf, anyOf, not } from './combine.js';
import type { Guard } from './guard.js';
import { noiseAware } from './noise-aware.js';
import { confirm, margin, plateau, smooth, threshold } from './score.js';
import { humanGate, noProgress, oscillation, rejectRepeat, repeatedOutput } from './thrash.js';

const unit = z.number().min(0).max(1);
const integer = (min: number) => z.number().int().min(min);

/** One optional field per leaf guard kind; {@link guardSpecSchema} adds the combinators and requires exactly one. */
const leafFields = z.strictObject(
  {
    threshold: z.strictObject({ bar: unit }).optional(),
    confirm: z.strictObject({ k: integer(1), bar: unit }).optional(),
    smooth: z.strictObject({ k: integer(1), bar: unit }).optional(),
    margin: z.strictObject({ m: unit, bar: unit }).optional(),
    plateau: z.strictObject({ delta: unit, n: integer(2) }).optional(),
    adaptive: z.strictObject({ bar: unit, level: unit.default(0.3), minRuns: integer(0).default(3) }).optional(),
    noiseAware: z
      .strictObject({
        bar: unit,
        confidence: unit,
        noise: z.union([z.number().min(1e-6).max(1), z.literal('estimate')], { error: 'Expected a number in [0.000001, 1] or "estimate"' }),
      })
      .optional(),
    repeatedOutput: z
      .strictObject({ window: integer(1).default(3), repeats: integer(2).default(2) })
      .refine(({ window, repeats }) => repeats <= window, { message: 'Expected repeats ≤ window', path: ['repeats'] })
      .optional(),
    oscillation: z.strictObject({ window: integer(2).optional() }).optional(),
    rejectRepeat: z.strictObject({}).optional(),
    noProgress: z.strictObject({ window: integer(1).optional() }).optional(),
    humanGate: z.strictObject({ n: integer(1) }).optional(),
  },
  { error: (issue) => (issue.code === 'unrecognized_keys' ? unknownKindMessage(issue.keys) : undefined) },
);

/** Exactly one field of `T` is set. */
type ExactlyOne<T> = {
  [K in keyof T]-?: { [P in K]-?: NonNullable<T[P]> } & { [P in Exclude<keyof T, K>]?: undefined };
}[keyof T];

/** The verdict fields of a `not` spec, around the spec of its inner guard. */
interface NotSpec<Spec> {
  guard: Spec;
  reason: string;
  outcome: Outcome;
  detail?: string | undefined;
}

// The combinators nest specs, so their types are written out rather than inferred from a schema
// that would refer to itself.
interface GuardFields extends z.output<typeof leafFields> {
  anyOf?: GuardSpec[] | undefined;
  allOf?: GuardSpec[] | undefined;
  not?: NotSpec<GuardSpec> | undefined;
}

/** A validated guard spec, defaults filled in: exactly one guard kind. */
export type GuardSpec = ExactlyOne<GuardFields>;

/** A guard spec as written, before validation and defaults (exactly one kind must be set). */
export interface GuardSpecInput extends z.input<typeof leafFields> {
  anyOf?: GuardSpecInput[] | undefined;
  allOf?: GuardSpecInput[] | undefined;
  not?: NotSpec<GuardSpecInput> | undefined;
}

const nested: z.ZodType<GuardSpec, GuardSpecInput> = z.lazy(() => guardSpecSchema);

const KINDS = [...Object.keys(leafFields.shape), 'anyOf', 'allOf', 'not'].join(', ');

function unknownKindMessage(keys: readonly string[]): string {
  const unknown = keys.map((key) => JSON.stringify(key)).join(', ');
  return `Unknown guard ${unknown}; expected one of ${KINDS}`;
}

/** The guard kinds set on a spec: keys whose value is not `undefined`. */
const setKinds = (spec: object): string[] => Object.entries(spec).flatMap(([key, value]) => (value === undefined ? [] : [key]));

/**
 * A guard as written in a mission file (JSON or YAML): an object with exactly one key naming the guard
 * kind, whose value holds its parameters. `anyOf`, `allOf` and `not` nest specs. Unknown keys are
 * errors that name the key.
 *
 * @example
 * guardSpecSchema.parse({ anyOf: [{ confirm: { k: 2, bar: 0.8 } }, { plateau: { delta: 0.01, n: 3 } }] })
 */
export const guardSpecSchema = leafFields
  .extend({
    anyOf: z.array(nested).min(1).optional(),
    allOf: z.array(nested).min(1).optional(),
    not: z.strictObject({ guard: nested, reason: z.string().min(1), outcome: z.enum(OUTCOMES), detail: z.string().optional() }).optional(),
  })
  .refine((spec): spec is GuardSpec => setKinds(spec).length === 1, {
    // A spec whose only key is unknown already has an issue naming that key.
    when: (payload) => payload.issues.length === 0,
    error: (issue) => {
      const kinds = setKinds(issue.input as object);
      return `Expected exactly one guard (one of ${KINDS}), got ${kinds.length === 0 ? 'none' : kinds.join(', ')}`;
    },
  });

/** What some guard kinds need besides their spec. */
export interface GuardBuildContext {
  /** What `adaptive` learned per task type; the runtime loads it from the ledger (`ledger.priors`). */
  readonly priors?: AdaptivePriors;
}

/** Whether any spec, at any depth, is an `adaptive` guard: a policy that needs {@link GuardBuildContext.priors}. */
export function needsPriors(specs: readonly GuardSpec[]): boolean {
  return specs.some(
    (spec) =>
      spec.adaptive !== undefined ||
      needsPriors(spec.anyOf ?? []) ||
      needsPriors(spec.allOf ?? []) ||
      (spec.not !== undefined && needsPriors([spec.not.guard])),
  );
}

/**
 * Builds the guard a spec describes. Expects a spec that {@link guardSpecSchema} accepts; the guard
 * factories still reject out-of-range parameters with a `TypeError`. An `adaptive` spec needs
 * `context.priors`.
 *
 * @example
 * buildGuard({ confirm: { k: 2, bar: 0.8 } }).name // 'confirm(2, 0.8)'
 * buildGuard({ adaptive: { bar: 0.8, level: 0.3, minRuns: 3 } }, { priors: new AdaptivePriors() }).name // 'adaptive(0.8)'
 */
export function buildGuard(spec: GuardSpec, context: GuardBuildContext = {}): Guard {
  const kinds = typeof spec === 'object' && spec !== null ? setKinds(spec) : [];
  if (kinds.length !== 1) {
    throw new TypeError(`Expected a guard spec with exactly one of ${KINDS}, got ${JSON.stringify(spec)}`);
  }
  if (spec.threshold) return threshold(spec.threshold.bar);
  if (spec.confirm) return confirm(spec.confirm.k, spec.confirm.bar);
  if (spec.smooth) return smooth(spec.smooth.k, spec.smooth.bar);
  if (spec.margin) return margin(spec.margin.m, spec.margin.bar);
  if (spec.plateau) return plateau(spec.plateau.delta, spec.plateau.n);
  if (spec.adaptive) {
    const { priors } = context;
    if (priors === undefined)
      throw new TypeError(
        `Expected \`priors\` in the build context for the adaptive guard (what earlier runs taught it, e.g. from \`ledger.priors\`), got none`,
      );
    return adaptive({ ...spec.adaptive, priors });
  }
  if (spec.noiseAware) return noiseAware(spec.noiseAware);
  if (spec.repeatedOutput) return repeatedOutput(spec.repeatedOutput.window, spec.repeatedOutput.repeats);
  if (spec.oscillation) return oscillation(spec.oscillation.window);
  if (spec.rejectRepeat) return rejectRepeat();
  if (spec.noProgress) return noProgress(spec.noProgress.window);
  if (spec.humanGate) return humanGate(spec.humanGate.n);
  if (spec.anyOf) return anyOf(...spec.anyOf.map((inner) => buildGuard(inner, context)));
  if (spec.allOf) return allOf(...spec.allOf.map((inner) => buildGuard(inner, context)));
  if (spec.not) {
    const { guard, reason, outcome, detail } = spec.not;
    return not(buildGuard(guard, context), { reason, outcome, detail });
  }
  throw new TypeError(unknownKindMessage(kinds));
}

/**
 * Builds a policy (an ordered guard stack, first stop wins) from specs.
 *
 * @example
 * const policy = [...budgets(), ...buildPolicy(mission.stopPolicy.guards ?? defaultGuards())];
 * const learned = buildPolicy([{ adaptive: { bar: 0.8, level: 0.3, minRuns: 3 } }], { priors });
 */
export function buildPolicy(specs: readonly GuardSpec[], context: GuardBuildContext = {}): Guard[] {
  if (!Array.isArray(specs)) throw new TypeError(`Expected an array of guard specs, got ${typeof specs}`);
  return specs.map((spec) => buildGuard(spec, context));
}

/**
 * The stuck-loop guards a mission gets when it declares none. The runtime stacks the budget guards
 * before these.
 *
 * @example
 * buildPolicy(defaultGuards()).map((guard) => guard.name)
 * // ['oscillation()', 'repeatedOutput(3, 2)', 'noProgress()']
 */
export function defaultGuards(): GuardSpec[] {
  return [{ oscillation: {} }, { repeatedOutput: { window: 3, repeats: 2 } }, { noProgress: {} }];
}
