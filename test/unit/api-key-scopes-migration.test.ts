import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import pg from 'pg';
import { migrate } from '@/lib/db/migrate';
import { API_KEY_SCOPES } from '@/lib/auth/scopes';
import { createTestDatabase } from '../helpers/db';

/**
 * Migration 0097 (issue 40): keys made before scopes keep every scope, so existing integrations
 * answer as before; afterwards the database itself refuses a key with no scope, an unknown one,
 * or none named at all.
 */
describe('migration 0097_api_key_scopes', () => {
  it('gives every existing key all four scopes, and then refuses keys without a known scope', async () => {
    const database = await createTestDatabase();
    const db = new pg.Client({ connectionString: database.url });
    await db.connect();
    try {
      // The database as it was before 0097: the migration undone, so it runs again over a key of then.
      await db.query('ALTER TABLE api_keys DROP CONSTRAINT api_keys_scopes_known, DROP COLUMN scopes');
      await db.query(`DELETE FROM "_migrations" WHERE name = '0097_api_key_scopes'`);
      const { rows: [merchant] } = await db.query<{ id: number }>(
        `INSERT INTO merchants (email, webhook_secret_enc, topup_wallet_address, activation_wallet_address) VALUES ('old@example.com', 'v1.x.x.x.x', 'T1', 'T2') RETURNING id`,
      );
      const insertKey = (hash: string, scopes?: string[]) =>
        db.query(`INSERT INTO api_keys (merchant_id, label, prefix, key_hash${scopes ? ', scopes' : ''}) VALUES ($1, 'old', 'tk_old', $2${scopes ? ', $3' : ''})`, [merchant!.id, hash, ...(scopes ? [scopes] : [])]);
      await insertKey('old-key');

      assert.deepEqual(await migrate(database.url), ['0097_api_key_scopes']);
      const { rows } = await db.query<{ scopes: string[] }>(`SELECT scopes FROM api_keys WHERE key_hash = 'old-key'`);
      assert.deepEqual(rows[0]?.scopes, [...API_KEY_SCOPES]);

      // No default after it: a key names its scopes, and only known ones, at least one.
      await assert.rejects(insertKey('no-scopes'), /null value in column "scopes"/);
      await assert.rejects(insertKey('empty', []), /api_keys_scopes_known/);
      await assert.rejects(insertKey('unknown', ['read', 'admin']), /api_keys_scopes_known/);
      await insertKey('read-only', ['read']);
    } finally {
      await db.end();
      await database.drop();
    }
  });
});
