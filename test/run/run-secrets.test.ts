/**
 * Issue 27, finding 6: `npm start` (scripts/run.ts in production mode, over the existing
 * `next build`) prints no key or password, gives each child only what it uses, and leaves
 * WEBHOOK_ALLOW_PRIVATE to the dev run. The runner is started for real, and each child's
 * environment is read from /proc (Linux).
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { alive } from '@/lib/db/embedded';
import { applyLocalRunDefaults, devnetEnv, startBanner } from '@/scripts/childEnv';
import { freePort, TEST_MNEMONIC } from '../helpers/app';
import { createTestDatabase, type TestDatabase } from '../helpers/db';
import { SCRIPT_NODE_ARGS } from '../helpers/scripts';

const ROOT = path.resolve(import.meta.dirname, '../..');

function childrenOf(pid: number): number[] {
  const out: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const ppid = Number(readFileSync(`/proc/${entry}/stat`, 'utf8').split(') ')[1]!.split(' ')[1]);
      if (ppid === pid) out.push(Number(entry), ...childrenOf(Number(entry)));
    } catch {
      /* exited meanwhile */
    }
  }
  return out;
}

const cmdline = (pid: number) => readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
function environ(pid: number): Map<string, string> {
  const vars = readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0').filter(Boolean);
  return new Map(vars.map((v) => [v.slice(0, v.indexOf('=')), v.slice(v.indexOf('=') + 1)]));
}

describe('npm start keeps secrets where they are needed (issue 27, finding 6)', () => {
  let database: TestDatabase;
  let runner: ChildProcess;
  let output = '';
  let dataDir: string;
  const secrets = {
    DEMO_API_KEY: `tk_demo_${randomBytes(18).toString('base64url')}`,
    DEMO_DASHBOARD_PASSWORD: `pw-${randomBytes(9).toString('base64url')}`,
    MASTER_KEY: randomBytes(32).toString('hex'),
    NEXTAUTH_SECRET: randomBytes(32).toString('base64url'),
  };

  const UNRELATED = { AWS_SECRET_ACCESS_KEY: `aws-${randomBytes(12).toString('hex')}` };

  before(async () => {
    database = await createTestDatabase();
    dataDir = mkdtempSync(path.join(tmpdir(), 'run-secrets-'));
    const { WEBHOOK_ALLOW_PRIVATE: _unset, ...base } = process.env;
    // What `npm start` runs once the build exists: the runner, in production mode, on the local devnet.
    runner = spawn(process.execPath, [...SCRIPT_NODE_ARGS, 'scripts/run.ts'], {
      cwd: ROOT,
      detached: true,
      env: {
        ...base,
        ...secrets,
        // A variable no process of the service reads (another program's secret in the same shell).
        ...UNRELATED,
        DATABASE_URL: database.url,
        HD_MNEMONIC: TEST_MNEMONIC,
        DATA_DIR: dataDir,
        HOST: '127.0.0.1',
        PORT: String(await freePort()),
        DEVNET_PORT: String(await freePort()),
        DEVNET_BLOCK_MS: '200',
        WEB_CONCURRENCY: '1',
        RATES_PROVIDER: 'fixed',
        RATES_FIXED_TRX_USD: '0.25',
        RATES_FIXED_USDT_USD: '1',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    runner.stdout!.on('data', (d) => (output += d));
    runner.stderr!.on('data', (d) => (output += d));
    const deadline = Date.now() + 180_000;
    while (!/Dashboard:/.test(output)) {
      if (runner.exitCode !== null) throw new Error(`the runner exited (${runner.exitCode})\n${output}`);
      if (Date.now() > deadline) throw new Error(`no banner\n${output}`);
      await new Promise((r) => setTimeout(r, 250));
    }
  });

  after(async () => {
    if (runner?.pid && runner.exitCode === null) {
      const pids = [runner.pid, ...childrenOf(runner.pid)];
      process.kill(-runner.pid, 'SIGTERM');
      const deadline = Date.now() + 30_000;
      while (pids.some(alive) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 250));
      for (const p of pids.filter(alive)) process.kill(p, 'SIGKILL');
    }
    await database?.drop();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  it('prints neither the demo API key nor the demo dashboard password', () => {
    assert.match(output, /Service:/);
    for (const [name, value] of Object.entries(secrets)) assert.ok(!output.includes(value), `${name} is printed:\n${output}`);
  });

  it('gives each process only the variables it uses, and turns on WEBHOOK_ALLOW_PRIVATE for no process', () => {
    const children = childrenOf(runner.pid!);
    const find = (script: string) => {
      // The runner passes each bundle's absolute path (dist/server.mjs).
      const pid = children.find((p) => cmdline(p).some((arg) => arg === script || arg.endsWith(`/${script}`)));
      assert.ok(pid, `no ${script} process among ${children.map((p) => cmdline(p).join(' ')).join('\n')}`);
      return environ(pid);
    };
    const devnet = find('dist/devnet.mjs');
    for (const name of ['HD_MNEMONIC', 'MASTER_KEY', 'DATABASE_URL', 'NEXTAUTH_SECRET', 'DEMO_API_KEY', 'DEMO_DASHBOARD_PASSWORD']) assert.equal(devnet.has(name), false, `the devnet has ${name}`);
    assert.equal(devnet.get('DEVNET_BLOCK_MS'), '200');
    const web = find('dist/server.mjs');
    // The web: its database, master key and session secret; not the mnemonic, the demo secrets
    // (read by the seed only) or the worker's energy rental secret (set for the devnet run).
    for (const name of ['DATABASE_URL', 'MASTER_KEY', 'NEXTAUTH_SECRET', 'TRON_FULL_NODE_URL']) assert.ok(web.has(name), `the web lacks ${name}`);
    for (const name of ['HD_MNEMONIC', 'DEMO_API_KEY', 'DEMO_DASHBOARD_PASSWORD', 'ENERGY_RENTAL_API_SECRET', 'ENERGY_RENTAL_API_KEY']) assert.equal(web.has(name), false, `the web has ${name}`);
    const worker = find('dist/worker.mjs');
    assert.equal(worker.get('HD_MNEMONIC'), TEST_MNEMONIC, 'the worker signs');
    for (const name of ['DATABASE_URL', 'MASTER_KEY', 'ENERGY_RENTAL_API_SECRET', 'ENERGY_POOL_AUTOSTAKE']) assert.ok(worker.has(name), `the worker lacks ${name}`);
    for (const name of ['NEXTAUTH_SECRET', 'DEMO_API_KEY', 'DEMO_DASHBOARD_PASSWORD']) assert.equal(worker.has(name), false, `the worker has ${name}`);
    for (const [name, env] of [['devnet', devnet], ['web', web], ['worker', worker]] as const) {
      for (const unrelated of Object.keys(UNRELATED)) assert.equal(env.has(unrelated), false, `${name} has ${unrelated}`);
      assert.equal(env.get('NODE_ENV'), 'production', `${name}'s NODE_ENV`);
    }
    for (const [name, env] of [['devnet', devnet], ['web', web], ['worker', worker]] as const) assert.equal(env.has('WEBHOOK_ALLOW_PRIVATE'), false, `${name} has WEBHOOK_ALLOW_PRIVATE`);
  });

  it('the dev run alone shows the demo key and password and allows local webhook receivers', () => {
    const env = { NODE_ENV: 'production', DEMO_API_KEY: 'tk_demo_x', DEMO_DASHBOARD_PASSWORD: 'pw-y' } as NodeJS.ProcessEnv;
    const dev = startBanner(env, { dev: true, useDevnet: true, base: 'http://localhost:3000' });
    assert.match(dev, /tk_demo_x/);
    assert.match(dev, /pw-y/);
    assert.match(dev, /Second member: finance@example\.com \(role finance\), same password: pw-y/);
    const prod = startBanner(env, { dev: false, useDevnet: true, base: 'http://localhost:3000' });
    assert.doesNotMatch(prod, /tk_demo_x|pw-y/);
    for (const [dev, useDevnet, expected] of [[true, true, 'true'], [false, true, undefined], [true, false, undefined]] as const) {
      const run = {} as NodeJS.ProcessEnv;
      applyLocalRunDefaults(run, { dev, useDevnet });
      assert.equal(run.WEBHOOK_ALLOW_PRIVATE, expected, `dev ${dev}, devnet ${useDevnet}`);
    }
    const set = { NODE_ENV: 'production', WEBHOOK_ALLOW_PRIVATE: 'true' } as NodeJS.ProcessEnv;
    applyLocalRunDefaults(set, { dev: false, useDevnet: true });
    assert.equal(set.WEBHOOK_ALLOW_PRIVATE, 'true', "the operator's own setting stays");
    assert.deepEqual(Object.keys(devnetEnv({ NODE_ENV: 'production', DEVNET_PORT: '1', PATH: '/bin', MASTER_KEY: 'k', HD_MNEMONIC: 'm' } as NodeJS.ProcessEnv)).sort(), ['DEVNET_PORT', 'NODE_ENV', 'PATH']);
  });
});
