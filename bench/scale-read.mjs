// The practical limit for bench/scale: a plain streaming read of a ledger's records, hashing every body,
// with no verification logic. `node bench/scale-read.mjs sqlite FILE` iterates the records table with
// better-sqlite3; `node bench/scale-read.mjs postgres URL SCHEMA` reads it in keyset pages of 1,000 rows
// with `pg`. Prints `{"rows": n, "bytes": n, "digest": "…"}`. Plain JavaScript so that no loader adds
// to the memory it is compared on.
import { createHash } from 'node:crypto';

const [kind, location, schema] = process.argv.slice(2);
const digest = createHash('sha256');
let rows = 0;
let bytes = 0;
const take = (body) => {
  rows += 1;
  bytes += body.length;
  digest.update(body);
};

if (kind === 'sqlite') {
  const { default: Database } = await import('better-sqlite3');
  const db = new Database(location, { readonly: true });
  for (const row of db.prepare('SELECT body FROM records ORDER BY run_id, seq').iterate()) take(row.body);
  db.close();
} else if (kind === 'postgres') {
  const { default: pg } = await import('pg');
  const client = new pg.Client({ connectionString: location });
  await client.connect();
  // Keyset pages under one snapshot: each page starts after the last (run_id, seq) seen.
  await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
  let after = ['', -1];
  for (;;) {
    const { rows: page } = await client.query(
      `SELECT run_id, seq, body FROM ${schema}.records WHERE (run_id, seq) > ($1, $2) ORDER BY run_id, seq LIMIT 1000`,
      after,
    );
    for (const row of page) take(row.body);
    const last = page.at(-1);
    if (last === undefined) break;
    after = [last.run_id, last.seq];
  }
  await client.query('COMMIT');
  await client.end();
} else {
  console.error(`Expected sqlite FILE or postgres URL SCHEMA, got ${kind}`);
  process.exit(2);
}
console.log(JSON.stringify({ rows, bytes, digest: digest.digest('hex') }));
