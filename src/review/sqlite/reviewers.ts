import { immediate, type SqliteDatabase } from '../../db/sqlite/sqlite-database.js';
import { assertReviewer } from '../review-item.js';
import { assertReviewerEntry, assertTokenHash } from '../reviewers.js';

// The queue's reviewers and sign-out, on SQLite: `ReviewQueue.addReviewer`, `reviewerByToken`, `releaseClaims`;
// and the verdicts filter rules gave, per rule.

export function addReviewer(db: SqliteDatabase, name: string, tokenHash: string, at: number): void {
  assertReviewerEntry(name, tokenHash);
  immediate(db, () =>
    db
      .prepare(
        'INSERT INTO review_reviewers (name, token_hash, added_at) VALUES (?, ?, ?) ON CONFLICT (name) DO UPDATE SET token_hash = excluded.token_hash, added_at = excluded.added_at',
      )
      .run(name, tokenHash, at),
  );
}

export function reviewerByToken(db: SqliteDatabase, tokenHash: string): string | undefined {
  assertTokenHash(tokenHash);
  return (db.prepare('SELECT name FROM review_reviewers WHERE token_hash = ?').get(tokenHash) as { name: string } | undefined)?.name;
}

export function releaseClaims(db: SqliteDatabase, reviewer: string, at: number): number {
  assertReviewer(reviewer);
  return immediate(
    db,
    () =>
      db
        .prepare(
          "UPDATE review_items SET claimed_by = NULL, claimed_at = NULL, lease_until = NULL WHERE state = 'open' AND claimed_by = ? AND lease_until > ?",
        )
        .run(reviewer, at).changes,
  );
}

export function rulesVerdicts(db: SqliteDatabase): ReadonlyMap<string, number> {
  const rows = db.prepare("SELECT reviewer, count(*) AS n FROM review_verdicts WHERE reviewer LIKE 'filter:%' GROUP BY reviewer").all() as {
    reviewer: string;
    n: number;
  }[];
  return new Map(rows.map((row) => [row.reviewer, row.n]));
}
