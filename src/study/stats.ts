/** A mean and its sample standard deviation over seeds. */
export interface MeanSd {
  readonly mean: number;
  readonly sd: number;
}

/** Rounds to 4 decimals: reported numbers carry no false precision, and `-0` becomes `0`. */
export const round = (value: number): number => Math.round(value * 1e4) / 1e4 + 0;

/**
 * Mean and sample standard deviation (n − 1; 0 for a single value), rounded.
 *
 * @example
 * meanSd([1, 2, 3]) // { mean: 2, sd: 1 }
 */
export function meanSd(values: readonly number[]): MeanSd {
  const n = values.length;
  const mean = values.reduce((sum, value) => sum + value, 0) / n;
  const squares = values.reduce((sum, value) => sum + (value - mean) ** 2, 0);
  return { mean: round(mean), sd: n > 1 ? round(Math.sqrt(squares / (n - 1))) : 0 };
}
