/** Standard normal CDF, |error| < 1.5e-7 (Abramowitz & Stegun 7.1.26 on erf). */
export function normalCdf(x: number): number {
  const z = Math.abs(x) / Math.SQRT2;
  const t = 1 / (1 + 0.3275911 * z);
  const erf = 1 - t * (0.254829592 + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027 + t * 1.061405429)))) * Math.exp(-z * z);
  return x >= 0 ? 0.5 * (1 + erf) : 0.5 * (1 - erf);
}

const LOG_SQRT_2PI = 0.5 * Math.log(2 * Math.PI);

/** log Φ(x), accurate far into the lower tail (where Φ underflows). */
export function logNormalCdf(x: number): number {
  if (x > -5) return Math.log(normalCdf(x));
  // Asymptotic series of the Mills ratio.
  const x2 = x * x;
  return -x2 / 2 - Math.log(-x) - LOG_SQRT_2PI + Math.log(1 - 1 / x2 + 3 / (x2 * x2));
}
