import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { utils } from 'tronweb';

export interface DevSecrets {
  MASTER_KEY: string;
  HD_MNEMONIC: string;
  DEMO_API_KEY: string;
  NEXTAUTH_SECRET: string;
  DEMO_DASHBOARD_PASSWORD: string;
  /** Password of the embedded PostgreSQL's `postgres` role (set when its data directory is made). */
  EMBEDDED_DB_PASSWORD: string;
}

/**
 * Secrets for a local run, made once and kept in data/dev-secrets.json (mode 600)
 * so that restarts keep the same addresses, keys and demo API key. Production
 * sets them in the environment instead.
 */
export function loadDevSecrets(dataDir: string): DevSecrets {
  const file = path.join(dataDir, 'dev-secrets.json');
  const stored: Partial<DevSecrets> = existsSync(file) ? JSON.parse(readFileSync(file, 'utf8')) : {};
  const secrets: DevSecrets = {
    MASTER_KEY: randomBytes(32).toString('hex'),
    HD_MNEMONIC: utils.ethersUtils.Mnemonic.fromEntropy(randomBytes(16)).phrase,
    DEMO_API_KEY: `tk_demo_${randomBytes(24).toString('base64url')}`,
    NEXTAUTH_SECRET: randomBytes(32).toString('base64url'),
    DEMO_DASHBOARD_PASSWORD: randomBytes(9).toString('base64url'),
    EMBEDDED_DB_PASSWORD: randomBytes(18).toString('base64url'),
    // Values already made win, so addresses and keys survive restarts and upgrades.
    ...stored,
  };
  if (Object.keys(stored).length === Object.keys(secrets).length) return secrets;
  mkdirSync(dataDir, { recursive: true });
  writeFileSync(file, JSON.stringify(secrets, null, 2), { mode: 0o600 });
  return secrets;
}
