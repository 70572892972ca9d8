/**
 * Issue 34, items 2 and 3: `npm start` on a fresh checkout. The local run writes into its data
 * directory (DATA_DIR, default ./data), which a fresh checkout does not have yet.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { localDevnet } from '@/scripts/devEnv';

describe('the run on a data directory that does not exist yet (issue 34, item 3)', () => {
  it('records the devnet URL (dev-run.json), creating the directory', () => {
    const parent = mkdtempSync(path.join(tmpdir(), 'npm-start-data-'));
    try {
      const dataDir = path.join(parent, 'fresh', 'data');
      assert.equal(existsSync(dataDir), false);
      const env = { NODE_ENV: 'production', DEVNET_PORT: '45123' } as NodeJS.ProcessEnv;
      const url = localDevnet(dataDir, env);
      assert.match(url, /:45123$/);
      assert.deepEqual(JSON.parse(readFileSync(path.join(dataDir, 'dev-run.json'), 'utf8')), { devnetUrl: url });
      assert.equal(env.TRON_FULL_NODE_URL, url);
      assert.equal(env.DEVNET_DATA_DIR, path.join(dataDir, 'devnet'));
    } finally {
      rmSync(parent, { recursive: true, force: true });
    }
  });
});
