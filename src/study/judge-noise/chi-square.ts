// The chi-square distribution, for the confidence interval of a standard deviation.

/** log Γ(x) for x > 0 (Lanczos, g = 7, n = 9; relative error below 1e-15). */
function logGamma(x: number): number {
  const c = [
    0.99999999999980993, 676.5203681218851, -1259.1392167224028, 771.32342877765313, -176.61502916214059, 12.507343278686905,
    -0.13857109526572012, 9.9843695780195716e-6, 1.5056327351493116e-7,
  ];
  if (x < 0.5) return Math.log(Math.PI / Math.sin(Math.PI * x)) - logGamma(1 - x);
  const z = x - 1;
  let sum = c[0] as number;
  for (let index = 1; index < 9; index += 1) sum += (c[index] as number) / (z + index);
  const t = z + 7.5;
  return 0.5 * Math.log(2 * Math.PI) + (z + 0.5) * Math.log(t) - t + Math.log(sum);
}

/** The regularized lower incomplete gamma function P(a, x): a series below a + 1, a continued fraction above. */
function lowerGamma(a: number, x: number): number {
  if (x <= 0) return 0;
  const front = Math.exp(a * Math.log(x) - x - logGamma(a));
  if (x < a + 1) {
    let term = 1 / a;
    let sum = term;
    for (let n = 1; n < 1000 && Math.abs(term) > Math.abs(sum) * 1e-15; n += 1) {
      term *= x / (a + n);
      sum += term;
    }
    return sum * front;
  }
  // Lentz's method for the continued fraction of Q(a, x).
  const tiny = 1e-300;
  let b = x + 1 - a;
  let c = 1 / tiny;
  let d = 1 / b;
  let h = d;
  for (let n = 1; n < 1000; n += 1) {
    const an = -n * (n - a);
    b += 2;
    d = an * d + b;
    if (Math.abs(d) < tiny) d = tiny;
    c = b + an / c;
    if (Math.abs(c) < tiny) c = tiny;
    d = 1 / d;
    const delta = d * c;
    h *= delta;
    if (Math.abs(delta - 1) < 1e-15) break;
  }
  return 1 - front * h;
}

/** P(X ≤ x) for X ~ χ²(df). */
export function chiSquareCdf(x: number, df: number): number {
  return lowerGamma(df / 2, x / 2);
}

/**
 * The p-quantile of χ²(df), found by bisection on the CDF (to 1e-10 relative).
 *
 * @example
 * chiSquareQuantile(0.975, 10) // ≈ 20.483
 */
export function chiSquareQuantile(p: number, df: number): number {
  if (!(p > 0 && p < 1)) throw new TypeError(`Expected p in (0, 1), got ${p}`);
  if (!(df > 0)) throw new TypeError(`Expected df > 0, got ${df}`);
  let low = 0;
  let high = Math.max(1, df);
  while (chiSquareCdf(high, df) < p) high *= 2;
  while (high - low > 1e-10 * high) {
    const middle = (low + high) / 2;
    if (chiSquareCdf(middle, df) < p) low = middle;
    else high = middle;
  }
  return (low + high) / 2;
}

/**
 * The two-sided confidence interval of a normal standard deviation σ from a pooled estimate `sigma` with
 * `df` degrees of freedom: df·s²/σ² ~ χ²(df), so σ lies in [s·√(df/χ²₍₁₋α/₂₎), s·√(df/χ²₍α/₂₎)].
 *
 * @example
 * sigmaInterval({ sigma: 0.1, df: 40 }) // ≈ [0.082, 0.127]
 */
export function sigmaInterval({ sigma, df, level = 0.95 }: { sigma: number; df: number; level?: number }): readonly [number, number] {
  const alpha = 1 - level;
  return [sigma * Math.sqrt(df / chiSquareQuantile(1 - alpha / 2, df)), sigma * Math.sqrt(df / chiSquareQuantile(alpha / 2, df))];
}
