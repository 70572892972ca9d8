import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createPrisma } from '@/lib/db/client';
import { alive } from '@/lib/db/embedded';
import { freePort } from '../helpers/app';
import { startDevRun, waitUntil, type DevRun, type DevRunPorts } from '../helpers/devRun';
import { httpRequest, type HttpResponse } from '../helpers/http';

/**
 * The README's first command, `npm run dev`, with no DATABASE_URL: the embedded
 * PostgreSQL. Issue 11 found the old default (PGlite behind one multiplexed
 * session) handing one merchant's rows to another under concurrent load; this
 * drives the real run as a user would and checks every answer is the caller's.
 */

const ROOT = path.resolve(import.meta.dirname, '../..');
const DEMO_KEY = `tk_demo_${randomBytes(18).toString('base64url')}`;

interface Caller {
  tag: string;
  key: string;
  email: string;
  ids: number[];
}

describe('npm run dev on the embedded PostgreSQL', () => {
  let dataDir: string;
  let ports: DevRunPorts;
  let run: DevRun;
  const callers: Caller[] = [];
  /** The run's own database. */
  let url = '';

  const api = (c: Caller, p: string, body?: unknown) =>
    httpRequest(`${run.baseUrl}/v1/api${p}`, { method: body === undefined ? 'GET' : 'POST', headers: { authorization: c.key }, body });
  const create = (c: Caller, n: string) =>
    api(c, '/payment/create', { type: 'SINGLE', amount: 5, currencies: ['TRX', 'USDT'], order_id: `${c.tag}-${n}`, description: `${c.tag} order ${n}` });

  before(async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), 'devrun-'));
    ports = { web: await freePort(), devnet: await freePort(), db: await freePort() };
    run = await startDevRun(dataDir, ports, { DEMO_API_KEY: DEMO_KEY });
    callers.push({ tag: 'A', key: DEMO_KEY, email: 'demo@example.com', ids: [] });
    // A second merchant, made as the sign-up does, in the run's own database.
    url = `postgres://postgres:${encodeURIComponent(run.secrets.EMBEDDED_DB_PASSWORD!)}@127.0.0.1:${ports.db}/postgres`;
    Object.assign(process.env, { DATABASE_URL: url, MASTER_KEY: run.secrets.MASTER_KEY, HD_MNEMONIC: run.secrets.HD_MNEMONIC });
    const { createMerchant } = await import('@/lib/merchants/service');
    const { issueApiKey } = await import('@/lib/auth/apiKeys');
    const prisma = createPrisma(url);
    try {
      const email = `b-${randomBytes(4).toString('hex')}@example.com`;
      const b = await createMerchant(prisma, { email, targetWalletAddress: 'TGLheo1KN8M5W5fGbkeYXVFHnbKnN5pLPd' });
      callers.push({ tag: 'B', key: await issueApiKey(prisma, b.id, 'isolation test'), email, ids: [] });
    } finally {
      await prisma.$disconnect();
    }
  });

  after(async () => {
    await run?.stop();
    await rm(dataDir, { recursive: true, force: true });
  });

  it("seeds the demo store's logins with bcrypt hashes at production's cost, 12 (PASSWORD_HASH_COST unset)", async () => {
    const prisma = createPrisma(url);
    try {
      const users = await prisma.user.findMany({ where: { email: { in: ['demo@example.com', 'finance@example.com'] } }, select: { email: true, passwordHash: true } });
      assert.equal(users.length, 2, JSON.stringify(users.map((u) => u.email)));
      for (const u of users) assert.match(u.passwordHash ?? '', /^\$2[aby]\$12\$/, u.email);
    } finally {
      await prisma.$disconnect();
    }
  });

  it('answers ≥ 5,000 parallel reads of two merchants with 200 and only the caller\'s data, while invoices are created and the worker runs', async () => {
    // Each merchant's own invoices, created one by one (this also compiles the dev routes).
    for (const c of callers) {
      for (let i = 0; i < 15; i++) {
        const res = await create(c, `seed-${i}`);
        assert.equal(res.status, 200, res.text);
        c.ids.push(res.json.id);
      }
    }
    const problems: string[] = [];
    const note = (c: Caller, what: string, res: HttpResponse, why: string) => {
      if (problems.length < 20) problems.push(`${c.tag} ${what}: ${why} (${res.status} ${res.text.slice(0, 200)})`);
      else problems.push('');
    };
    const own = (c: Caller, inv: { order_id?: string | null; description?: string | null }) =>
      inv.order_id?.startsWith(`${c.tag}-`) === true && inv.description?.startsWith(`${c.tag} order`) === true;

    let reads = 0;
    let creates = 0;
    let next = 0;
    const TOTAL = 5_600;
    const CONCURRENCY = 32;
    async function client(): Promise<void> {
      while (next < TOTAL) {
        const n = next++;
        const c = callers[n % 2]!;
        const op = n % 10;
        if (op === 0) {
          const res = await create(c, `load-${n}`);
          creates++;
          if (res.status !== 200) note(c, 'create', res, 'not 200');
          else if (!own(c, res.json)) note(c, 'create', res, 'answered with another merchant\'s invoice');
          else c.ids.push(res.json.id);
        } else if (op <= 3) {
          const res = await api(c, '/merchant');
          reads++;
          if (res.status !== 200) note(c, 'GET /merchant', res, 'not 200');
          else if (res.json.email !== c.email) note(c, 'GET /merchant', res, `another merchant's account (${res.json.email})`);
        } else if (op <= 6) {
          const res = await api(c, `/payment/list?limit=20&ordering=${n % 2 ? '-' : ''}created_at`);
          reads++;
          if (res.status !== 200) note(c, 'GET /payment/list', res, 'not 200');
          else if (res.json.results.length === 0 || !res.json.results.every((inv: never) => own(c, inv))) note(c, 'GET /payment/list', res, 'empty, or holds another merchant\'s invoices');
        } else {
          const id = c.ids[n % c.ids.length]!;
          const res = await api(c, `/payment/get/${id}`);
          reads++;
          if (res.status !== 200) note(c, `GET /payment/get/${id}`, res, 'not 200');
          else if (res.json.id !== id || !own(c, res.json)) note(c, `GET /payment/get/${id}`, res, 'another invoice');
        }
      }
    }
    await Promise.all(Array.from({ length: CONCURRENCY }, client));
    assert.ok(reads + creates >= 5_000, `only ${reads + creates} responses`);
    assert.ok(creates >= 500, `only ${creates} creations`);
    const serverErrors = run.output().split('\n').filter((l) => /error|Error|⨯/.test(l)).slice(0, 20).join('\n');
    assert.deepEqual(problems.filter(Boolean), [], `${problems.length} bad answers of ${reads + creates}; the run logged:\n${serverErrors}`);
    assert.match(run.output(), /worker: running as/, 'the worker runs beside the web app');
  });

  it('loses no acknowledged invoice when the whole run is killed with SIGKILL mid-load, and starts again', async () => {
    const c = callers[0]!;
    const acknowledged = new Map<number, string>();
    let cut = false;
    let n = 0;
    async function creator(): Promise<void> {
      while (!cut) {
        const orderId = `kill-${n++}`;
        try {
          const res = await create(c, orderId);
          if (res.status === 200) acknowledged.set(res.json.id, `A-${orderId}`);
        } catch {
          /* the connection died with the server: not acknowledged */
        }
      }
    }
    const creators = Array.from({ length: 16 }, creator);
    // A deadline, not a bare wait: creations that stopped answering 200 would otherwise hold the
    // file (and the suite) forever, saying nothing.
    try {
      await waitUntil('200 creations were not acknowledged', () => acknowledged.size >= 200, 180_000, () => `(${acknowledged.size} were); the run logged:\n${run.output().slice(-3000)}`);
    } catch (err) {
      cut = true;
      await Promise.all(creators);
      throw err;
    }
    await run.powerCut();
    cut = true;
    await Promise.all(creators);
    assert.deepEqual(run.processes(), [], 'nothing of the run survives a power cut');

    run = await startDevRun(dataDir, ports, { DEMO_API_KEY: DEMO_KEY });
    const lost: string[] = [];
    for (const [id, orderId] of acknowledged) {
      const res = await api(c, `/payment/get/${id}`);
      if (res.status !== 200 || res.json.order_id !== orderId) lost.push(`${id}/${orderId}: ${res.status} ${res.text.slice(0, 100)}`);
    }
    assert.deepEqual(lost, [], `${lost.length} of ${acknowledged.size} acknowledged invoices lost`);
  });

  it('starts again after only the runner is killed: its children stop, the orphaned database is shut down cleanly', async () => {
    const c = callers[1]!;
    const made = await create(c, 'before-runner-kill');
    assert.equal(made.status, 200, made.text);
    await run.killRunner();
    await assert.rejects(httpRequest(`${run.baseUrl}/healthz`), 'the web server stopped with its runner');
    run = await startDevRun(dataDir, ports, { DEMO_API_KEY: DEMO_KEY });
    const res = await api(c, `/payment/get/${made.json.id}`);
    assert.equal(res.status, 200, res.text);
    assert.equal(res.json.order_id, 'B-before-runner-kill');
  });

  // Last: it stops the run. The operator commands on the run exactly as it was left: no
  // DATABASE_URL, MASTER_KEY or chain variables, only the data directory this run was given (issue 22).
  it('runs npm run reconcile, payment:retry and payout:return on the run as it is, and with the run stopped, with no variables', async () => {
    const bare = { PATH: process.env.PATH, HOME: process.env.HOME, DATA_DIR: dataDir } as unknown as NodeJS.ProcessEnv;
    // A command that never ends fails the test (SIGTERM after 3 minutes) instead of holding the suite.
    const npm = (...args: string[]) => spawnSync('npm', ['run', '--silent', ...args], { cwd: ROOT, env: bare, encoding: 'utf8', timeout: 180_000 });
    const reconciled = npm('reconcile');
    assert.equal(reconciled.status, 0, `${reconciled.stdout}${reconciled.stderr}`);
    assert.match(reconciled.stdout, /balanced/);
    const retried = npm('payment:retry', '--', '999999');
    assert.equal(retried.status, 1, `${retried.stdout}${retried.stderr}`);
    assert.match(retried.stderr, /payment:retry: payment 999999 not found/);
    assert.doesNotMatch(retried.stderr, /DATABASE_URL|MASTER_KEY|undefined/);
    const returned = npm('payout:return', '--', '999999', 'TGLheo1KN8M5W5fGbkeYXVFHnbKnN5pLPd');
    assert.equal(returned.status, 1, `${returned.stdout}${returned.stderr}`);
    assert.match(returned.stderr, /payout:return: Payout 999999 not found/);

    // With the run stopped, the command starts the run's database for itself and stops it again.
    await run.stop();
    const alone = npm('payment:retry', '--', '999999');
    assert.equal(alone.status, 1, `${alone.stdout}${alone.stderr}`);
    assert.match(alone.stderr, /payment:retry: payment 999999 not found/);
    const pidFile = path.join(dataDir, 'postgres', 'postmaster.pid');
    assert.ok(!existsSync(pidFile) || !alive(Number(readFileSync(pidFile, 'utf8').split('\n')[0])), 'the database it started is stopped');
  });
});
