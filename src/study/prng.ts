/** A source of uniform numbers in [0, 1). Studies take a factory of these so that tests can script them. */
export type Uniform = () => number;

/** Builds a {@link Uniform} from a 32-bit seed. */
export type RandomFactory = (seed: number) => Uniform;

/**
 * sfc32 (Chris Doty-Humphrey's Small Fast Counting generator), seeded through splitmix32: fast,
 * passes PractRand, and gives the same sequence on every platform.
 *
 * @example
 * const next = sfc32(42);
 * next(); // a number in [0, 1), the same on every run
 */
export const sfc32: RandomFactory = (seed) => {
  const mix = splitmix32(seed);
  let a = mix();
  let b = mix();
  let c = mix();
  let d = mix();
  const next = (): number => {
    const t = (((a + b) | 0) + d) | 0;
    d = (d + 1) | 0;
    a = b ^ (b >>> 9);
    b = (c + (c << 3)) | 0;
    c = (c << 21) | (c >>> 11);
    c = (c + t) | 0;
    return (t >>> 0) / 4294967296;
  };
  // The first outputs still carry the seed's structure.
  for (let i = 0; i < 12; i += 1) next();
  return next;
};

/** splitmix32: a stream of well-mixed 32-bit integers from any integer seed. */
function splitmix32(seed: number): () => number {
  let state = seed | 0;
  return () => {
    state = (state + 0x9e3779b9) | 0;
    let z = state;
    z = Math.imul(z ^ (z >>> 16), 0x85ebca6b);
    z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35);
    return (z ^ (z >>> 16)) >>> 0;
  };
}

/**
 * A 32-bit seed for one independent stream of a run: the same `(seed, stream)` always gives the same
 * value, and neighbouring seeds or streams give unrelated ones.
 */
export function streamSeed(seed: number, stream: number): number {
  const mix = splitmix32(Math.imul(seed | 0, 0x27d4eb2d) ^ Math.imul(stream + 1, 0x165667b1));
  return mix();
}

/**
 * Standard normal draws from `uniform` by the Box–Muller transform; each pair of uniforms gives two
 * draws, the second kept for the next call.
 *
 * @example
 * const z = normals(sfc32(7));
 * z(); // ~ N(0, 1)
 */
export function normals(uniform: Uniform): () => number {
  let spare: number | undefined;
  return () => {
    if (spare !== undefined) {
      const value = spare;
      spare = undefined;
      return value;
    }
    // 1 − u lies in (0, 1]: the logarithm stays finite.
    const radius = Math.sqrt(-2 * Math.log(1 - uniform()));
    const angle = 2 * Math.PI * uniform();
    spare = radius * Math.sin(angle);
    return radius * Math.cos(angle);
  };
}
