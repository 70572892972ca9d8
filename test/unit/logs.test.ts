/**
 * Issue 14, finding 9: the development server's log printed the sign-up
 * server action's arguments, the password among them. `npm run dev` is run by
 * merchants trying the service with real passwords, so its log is checked here:
 * the real dev server (server.ts --dev), a real sign-up, the captured output.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { freePort, TEST_MNEMONIC } from '../helpers/app';
import { createTestDatabase, type TestDatabase } from '../helpers/db';
import { httpRequest } from '../helpers/http';

const ROOT = path.resolve(import.meta.dirname, '../..');
const DIST = '.next-logs-test';

function actionId(): string | undefined {
  for (const dir of [path.join(ROOT, DIST, 'server'), path.join(ROOT, DIST, 'dev', 'server')]) {
    const file = path.join(dir, 'server-reference-manifest.json');
    if (!existsSync(file)) continue;
    const manifest = JSON.parse(readFileSync(file, 'utf8')) as { node: Record<string, { filename?: string; exportedName?: string }> };
    const id = Object.keys(manifest.node).find((k) => manifest.node[k]!.filename?.endsWith('signup/actions.ts') && manifest.node[k]!.exportedName === 'signUp');
    if (id) return id;
  }
  return undefined;
}

describe('no secret in the development server log', () => {
  let database: TestDatabase;
  let stop: () => Promise<void> = async () => undefined;
  let output = '';
  let baseUrl = '';

  before(async () => {
    database = await createTestDatabase();
    const port = await freePort();
    baseUrl = `http://127.0.0.1:${port}`;
    const child = spawn(process.execPath, ['--import', 'tsx', 'server.ts', '--dev'], {
      cwd: ROOT,
      env: {
        ...process.env,
        NODE_ENV: 'development',
        NEXT_DIST_DIR: DIST,
        NEXT_TELEMETRY_DISABLED: '1',
        DATABASE_URL: database.url,
        MASTER_KEY: randomBytes(32).toString('hex'),
        NEXTAUTH_SECRET: randomBytes(32).toString('base64url'),
        HD_MNEMONIC: TEST_MNEMONIC,
        PORT: String(port),
        HOST: '127.0.0.1',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout.on('data', (d) => (output += d));
    child.stderr.on('data', (d) => (output += d));
    stop = async () => {
      if (child.exitCode === null) {
        const exited = new Promise((r) => child.once('exit', r));
        child.kill('SIGTERM');
        await exited;
      }
    };
    const deadline = Date.now() + 180_000;
    for (;;) {
      if (child.exitCode !== null) throw new Error(`dev server exited:\n${output}`);
      try {
        if ((await httpRequest(`${baseUrl}/healthz`)).status === 200) break;
      } catch {
        /* not yet */
      }
      if (Date.now() > deadline) throw new Error(`dev server not up:\n${output}`);
      await new Promise((r) => setTimeout(r, 500));
    }
  });

  after(async () => {
    await stop();
    await database?.drop();
    rmSync(path.join(ROOT, DIST), { recursive: true, force: true });
  });

  it('does not print the sign-up password (server function arguments)', { timeout: 240_000 }, async () => {
    // Compiling the page registers its server action.
    assert.equal((await httpRequest(`${baseUrl}/signup`)).status, 200);
    const id = actionId();
    assert.ok(id, 'the sign-up action in the dev manifest');
    const password = `pw-${randomBytes(8).toString('hex')}`;
    const email = `log-${randomBytes(4).toString('hex')}@example.com`;
    const res = await httpRequest(`${baseUrl}/signup`, {
      method: 'POST',
      headers: { 'next-action': id, 'content-type': 'text/plain;charset=UTF-8', accept: 'text/x-component', origin: baseUrl },
      body: JSON.stringify([{ email, password }]),
    });
    assert.equal(res.status, 200, res.text.slice(0, 300));
    // The account exists: the action really ran with these arguments.
    const pg = await import('pg');
    const client = new pg.default.Client({ connectionString: database.url });
    await client.connect();
    try {
      assert.equal((await client.query('SELECT count(*)::int AS n FROM merchants WHERE email = $1', [email])).rows[0].n, 1);
    } finally {
      await client.end();
    }
    await new Promise((r) => setTimeout(r, 500)); // the request log line is written after the answer
    assert.ok(!output.includes(password), `the password is in the log:\n${output.split('\n').filter((l) => l.includes(password)).join('\n')}`);
  });
});
