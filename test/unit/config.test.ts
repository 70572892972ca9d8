import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { describe, it } from 'node:test';
import { parseChainConfig, parseConfig, parseDevnetEnv, parseSessionEnv, parseWorkerSettings } from '@/lib/config';
import type { BundleName } from '@/scripts/bundle';
import { TEST_MNEMONIC } from '../helpers/app';
import { bundled } from '../helpers/bundle';

/** The one configuration module, lib/config.ts (docs/configuration.md). */
const good = { DATABASE_URL: 'postgres://x@y/z', MASTER_KEY: 'a'.repeat(64), HD_MNEMONIC: TEST_MNEMONIC };
// The test phrase with its last word replaced by another BIP39 word: 12 dictionary words, wrong checksum.
const MISTYPED = 'test test test test test test test test test test test test';
const CHECKSUM_MESSAGE = 'HD_MNEMONIC is not a valid BIP39 phrase';

/** Runs a bundled entry point (as production does) with `env` only (plus PATH), and returns how it ended within 30 s. */
function runEntry(name: BundleName, env: Record<string, string>): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child: ChildProcess = spawn(process.execPath, bundled(name), { env: { PATH: process.env.PATH ?? '', NODE_ENV: 'production', ...env }, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${name} was still running after 30 s: ${stderr}`));
    }, 30_000);
    child.on('exit', (code: number | null) => {
      clearTimeout(timer);
      resolve({ code, stderr });
    });
  });
}

describe('configuration: HD_MNEMONIC', () => {
  it('refuses a phrase whose BIP39 checksum does not hold (a mistyped or swapped word)', () => {
    for (const phrase of [MISTYPED, TEST_MNEMONIC.replace('junk', 'junc'), TEST_MNEMONIC.split(' ').reverse().join(' ')]) {
      assert.throws(() => parseConfig({ ...good, HD_MNEMONIC: phrase }), (err: Error) => err.message.includes(CHECKSUM_MESSAGE), phrase);
    }
    assert.throws(() => parseConfig({ ...good, HD_MNEMONIC: 'test test test' }), /HD_MNEMONIC must be a BIP39 phrase of 12-24 words/);
    assert.equal(parseConfig({ ...good, HD_MNEMONIC: ` ${TEST_MNEMONIC} ` }).HD_MNEMONIC, ` ${TEST_MNEMONIC} `);
  });

  for (const entry of ['worker', 'server'] as const) {
    it(`stops the ${entry} at start-up, naming the variable`, { timeout: 40_000 }, async () => {
      const env = { ...good, DATABASE_URL: 'postgres://unused@127.0.0.1:9/unused', NEXTAUTH_SECRET: randomBytes(32).toString('base64url'), HD_MNEMONIC: MISTYPED };
      const { code, stderr } = await runEntry(entry, env);
      assert.notEqual(code, 0);
      assert.match(stderr, new RegExp(`HD_MNEMONIC: ${CHECKSUM_MESSAGE}`));
    });
  }
});

describe('configuration: sections', () => {
  it('validates each section on its own: the web needs no worker, session or devnet settings, and the reverse', () => {
    const workerOnlyBad = { WORKER_POLL_MS: 'fast', TRON_TX_EXPIRATION_MS: '5', NEXTAUTH_SECRET: 'short', DEVNET_PORT: '-1' };
    assert.equal(parseConfig({ ...good, ...workerOnlyBad }).PORT, 3000);
    assert.throws(() => parseWorkerSettings(workerOnlyBad), /Invalid worker configuration:\n {2}WORKER_POLL_MS/);
    assert.throws(() => parseChainConfig(workerOnlyBad), /TRON_TX_EXPIRATION_MS must be at least 10000/);
    assert.throws(() => parseSessionEnv(workerOnlyBad), /NEXTAUTH_SECRET must be at least 32 characters/);
    assert.throws(() => parseDevnetEnv(workerOnlyBad), /DEVNET_PORT must be 0..65535/);
    // And the worker's section needs none of the web's required secrets.
    assert.equal(parseWorkerSettings({}).WORKER_POLL_MS, 1000);
  });

  it('shares GAS_MARGIN_PERCENT between the web (payout estimates) and the worker (gas), with one rule', () => {
    assert.equal(parseConfig({ ...good, GAS_MARGIN_PERCENT: '35' }).GAS_MARGIN_PERCENT, '35');
    assert.equal(parseWorkerSettings({ GAS_MARGIN_PERCENT: '35' }).GAS_MARGIN_PERCENT, '35');
    for (const parse of [() => parseConfig({ ...good, GAS_MARGIN_PERCENT: '-1' }), () => parseWorkerSettings({ GAS_MARGIN_PERCENT: '-1' })]) {
      assert.throws(parse, /GAS_MARGIN_PERCENT must be a non-negative decimal number/);
    }
  });

  it("hashes dashboard passwords at bcrypt's cost 12 unless PASSWORD_HASH_COST says another, from 4 to 31", () => {
    assert.equal(parseConfig(good).PASSWORD_HASH_COST, 12);
    assert.equal(parseConfig({ ...good, PASSWORD_HASH_COST: '13' }).PASSWORD_HASH_COST, 13);
    for (const bad of ['3', '32', '12.5', 'twelve']) assert.throws(() => parseConfig({ ...good, PASSWORD_HASH_COST: bad }), /PASSWORD_HASH_COST/, bad);
  });

  it('refuses SCAN_IDLE_BLOCKS above half of SCAN_BATCH_BLOCKS: an idle read would find a full batch and read again at once (issue 37)', () => {
    assert.throws(() => parseWorkerSettings({ SCAN_IDLE_BLOCKS: '50' }), /SCAN_IDLE_BLOCKS: SCAN_IDLE_BLOCKS \(50\) must be at most half of SCAN_BATCH_BLOCKS \(50\)/);
    assert.throws(() => parseWorkerSettings({ SCAN_IDLE_BLOCKS: '26' }), /at most half of SCAN_BATCH_BLOCKS \(50\)/);
    assert.equal(parseWorkerSettings({ SCAN_IDLE_BLOCKS: '25' }).SCAN_IDLE_BLOCKS, 25);
    assert.equal(parseWorkerSettings({ SCAN_IDLE_BLOCKS: '50', SCAN_BATCH_BLOCKS: '100' }).SCAN_IDLE_BLOCKS, 50);
    assert.equal(parseWorkerSettings({}).SCAN_IDLE_BLOCKS, 10);
  });

  it('reads the chain preset and the devnet URL as before', () => {
    assert.equal(parseChainConfig({}).network, 'devnet');
    assert.equal(parseChainConfig({ TRON_NETWORK: 'mainnet' }).fullNodeUrl, 'https://api.trongrid.io');
    assert.equal(parseDevnetEnv({ DEVNET_PORT: '9191' }).DEVNET_PORT, 9191);
  });
});
