import type { PgClient } from '../../db/postgres/pg-pool.js';
import { assertReviewer } from '../review-item.js';
import { assertReviewerEntry, assertTokenHash } from '../reviewers.js';

// The queue's reviewers and sign-out, on PostgreSQL: `ReviewQueue.addReviewer`, `reviewerByToken`,
// `releaseClaims`; and the verdicts filter rules gave, per rule. `S` is the quoted schema. Each is one statement.

type Query = Pick<PgClient, 'query'>;

export async function addReviewer(pool: Query, S: string, name: string, tokenHash: string, at: number): Promise<void> {
  assertReviewerEntry(name, tokenHash);
  await pool.query(
    `INSERT INTO ${S}.review_reviewers (name, token_hash, added_at) VALUES ($1, $2, $3) ON CONFLICT (name) DO UPDATE SET token_hash = excluded.token_hash, added_at = excluded.added_at`,
    [name, tokenHash, at],
  );
}

export async function reviewerByToken(pool: Query, S: string, tokenHash: string): Promise<string | undefined> {
  assertTokenHash(tokenHash);
  const { rows } = await pool.query<{ name: string }>(`SELECT name FROM ${S}.review_reviewers WHERE token_hash = $1`, [tokenHash]);
  return rows[0]?.name;
}

export async function releaseClaims(pool: Query, S: string, reviewer: string, at: number): Promise<number> {
  assertReviewer(reviewer);
  const { rows } = await pool.query(
    `UPDATE ${S}.review_items SET claimed_by = NULL, claimed_at = NULL, lease_until = NULL WHERE state = 'open' AND claimed_by = $1 AND lease_until > $2 RETURNING id`,
    [reviewer, at],
  );
  return rows.length;
}

export async function rulesVerdicts(pool: Query, S: string): Promise<ReadonlyMap<string, number>> {
  const { rows } = await pool.query<{ reviewer: string; n: string }>(
    `SELECT reviewer, count(*) AS n FROM ${S}.review_verdicts WHERE reviewer LIKE 'filter:%' GROUP BY reviewer`,
  );
  return new Map(rows.map((row) => [row.reviewer, Number(row.n)]));
}
