/** Keys JSON writes as they are between quotes (most keys): no escaping needed. */
const PLAIN_KEY = /^[A-Za-z0-9_$-]*$/;

/**
 * Canonical JSON: object keys sorted, no insignificant whitespace, `undefined` members dropped,
 * numbers in JavaScript's shortest round-trip form. Equal values give equal strings.
 */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') {
    if (typeof value !== 'number') return JSON.stringify(value) ?? 'null';
    if (!Number.isFinite(value)) throw new TypeError(`Expected a finite number, got ${value}`);
    // JSON.stringify's own conversion of a finite number.
    return String(value);
  }
  // One string built in place, without intermediate arrays: every record of every run comes through here.
  let out: string;
  if (Array.isArray(value)) {
    out = '[';
    for (let index = 0; index < value.length; index += 1) {
      const item: unknown = value[index];
      if (index > 0) out += ',';
      out += item === undefined ? 'null' : canonicalJson(item);
    }
    return out + ']';
  }
  const record = value as Record<string, unknown>;
  const keys = Object.keys(record);
  keys.sort();
  out = '{';
  let first = true;
  for (let index = 0; index < keys.length; index += 1) {
    const key = keys[index] as string;
    const member = record[key];
    if (member === undefined) continue;
    out += (first ? '"' : ',"') + (PLAIN_KEY.test(key) ? key : JSON.stringify(key).slice(1, -1)) + '":' + canonicalJson(member);
    first = false;
  }
  return out + '}';
}
