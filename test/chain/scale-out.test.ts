/**
 * Issue 27, scale-out on one PostgreSQL: two "hosts", each a web process (server.ts over the
 * production build, as `npm start` runs it) and a worker (worker/main.ts), every one of them in a
 * process group of its own and the web processes on ports of their own, against ONE database and
 * one devnet. Under invoice creation against both ports the sum accepted respects one limit
 * (INVOICE_CREATE_RATE_PER_MINUTE), and so do failed sign-ins (sign_in_attempts); invoices paid on the devnet in TRX and USDT are each settled
 * exactly once (one payment, one landed forward, one COMPLETED webhook), and `npm run reconcile`
 * passes.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { MAX_FAILED_SIGN_INS } from '@/lib/auth/signInThrottle';
import { registerTestMerchant } from '../helpers/accounts';
import { waitFor } from '../helpers/devnet';
import { assertReconciled } from '../helpers/reconcile';
import { DashboardSession } from '../helpers/session';
import { SettlementStack } from '../helpers/settlementStack';
import { scriptArgs } from '../helpers/scripts';

const ROOT = path.resolve(import.meta.dirname, '../..');
const LIMIT = 10;

describe('two hosts (web process + worker each) on one PostgreSQL and one devnet (issue 27)', () => {
  const stack = new SettlementStack();

  before(async () => {
    await stack.start({}, undefined, { hosts: 2, appEnv: { INVOICE_CREATE_RATE_PER_MINUTE: String(LIMIT) } });
  });
  after(async () => {
    await stack.stop();
  });

  it('runs as separate process groups on their own ports', () => {
    assert.equal(stack.apps.length, 2);
    assert.equal(stack.workers.length, 2);
    assert.notEqual(stack.apps[0]!.baseUrl, stack.apps[1]!.baseUrl);
    assert.equal(stack.apps[0]!.database.url, stack.apps[1]!.database.url);
  });

  it('one API key creating invoices on both hosts at once gets one limit between them', async () => {
    const { key } = await stack.newMerchant();
    const body = { type: 'SINGLE', amount: 10, currencies: ['TRX'] };
    const started = Date.now();
    // Four limits' worth at once, alternating the two hosts.
    const answers = await Promise.all(
      Array.from({ length: 4 * LIMIT }, async (_, i) => {
        const host = i % 2;
        const res = await stack.apps[host]!.api('/payment/create', key, { method: 'POST', body });
        return { host, status: res.status, id: res.status === 200 ? (res.json.id as number) : null };
      }),
    );
    const elapsedMs = Date.now() - started;
    assert.deepEqual([...new Set(answers.map((a) => a.status))].sort(), [200, 429], JSON.stringify(answers));
    const accepted = answers.filter((a) => a.status === 200);
    // The whole burst, and no more than what refilled meanwhile (one every 60/LIMIT s): counted in
    // each process's memory, each host would have accepted LIMIT.
    const refilled = Math.floor((elapsedMs / 60_000) * LIMIT) + 1;
    assert.ok(accepted.length >= LIMIT, `${accepted.length} accepted`);
    assert.ok(accepted.length <= LIMIT + refilled && accepted.length < 2 * LIMIT, `${accepted.length} accepted in ${elapsedMs} ms against ${LIMIT} a minute`);
    for (const host of [0, 1]) assert.ok(answers.some((a) => a.host === host && a.status === 429), `host ${host} refused none`);
    // Every acknowledged invoice exists, once.
    const ids = accepted.map((a) => a.id!);
    assert.equal(await stack.app.prisma.invoice.count({ where: { id: { in: ids } } }), ids.length);
    assert.equal(new Set(ids).size, ids.length);
  });

  it('failed sign-ins against both hosts from one address count towards one limit (sign_in_attempts)', async () => {
    const email = `s-${randomBytes(5).toString('hex')}@example.com`;
    const password = 'correct horse battery';
    await registerTestMerchant(stack.app.prisma, { email, password });
    // MAX_FAILED_SIGN_INS wrong guesses, alternating the hosts: counted per process, each host would have seen fewer.
    for (let i = 0; i < MAX_FAILED_SIGN_INS; i++) {
      assert.equal(await new DashboardSession(stack.apps[i % 2]!.baseUrl).signIn(email, `guess ${i} is wrong`), 'CredentialsSignin');
    }
    // Now even the right password is refused from that address, on either host ...
    for (const app of stack.apps) assert.match((await new DashboardSession(app.baseUrl).signIn(email, password)) ?? '', /^Too many failed sign-in attempts\./);
    // ... and accepted from another.
    assert.equal(await new DashboardSession(stack.apps[1]!.baseUrl, '127.0.0.9').signIn(email, password), null);
  });

  it('pays TRX and USDT invoices created on either host: each settled once, one webhook each, and npm run reconcile passes', { timeout: 600_000 }, async () => {
    const db = stack.app.prisma;
    const merchants = await Promise.all([0, 1, 2].map(() => stack.newMerchant()));
    const invoices: { key: string; id: number; currency: 'TRX' | 'USDT' }[] = [];
    for (const [i, m] of merchants.entries()) {
      for (const currency of ['TRX', 'USDT'] as const) {
        // Created on one host, paid, and followed on the other.
        const res = await stack.apps[(i + invoices.length) % 2]!.api('/payment/create', m.key, { method: 'POST', body: { type: 'SINGLE', amount: 5, currencies: [currency] } });
        assert.equal(res.status, 200, res.text);
        await stack.pay(res.json.address, String(res.json.currencies_amounts[currency]), currency);
        invoices.push({ key: m.key, id: res.json.id, currency });
      }
    }
    for (const [i, inv] of invoices.entries()) {
      const res = await waitFor(`invoice ${inv.id} COMPLETED`, async () => {
        const r = await stack.apps[(i + 1) % 2]!.api(`/payment/get/${inv.id}`, inv.key);
        return r.json.status === 'COMPLETED' ? r : null;
      }, 300_000).catch(async (err: Error) => {
        throw new Error(`${err.message}; ${await stack.dump(inv.id)}`);
      });
      assert.equal(res.json.status, 'COMPLETED');
    }
    // Every webhook queued has gone out.
    await waitFor('the webhook outbox drained', async () => (await db.webhookDelivery.count({ where: { status: { in: ['PENDING', 'SENDING'] } } })) === 0, 120_000);
    for (const inv of invoices) {
      const payments = await db.transaction.findMany({ where: { invoiceId: inv.id, type: 'PAYMENT' } });
      assert.equal(payments.length, 1, `invoice ${inv.id}: ${payments.length} payments recorded`);
      assert.equal(payments[0]!.paymentState, 'SETTLED');
      const landed = await db.transaction.count({ where: { sourceId: payments[0]!.id, sendPurpose: 'FORWARD', sendState: 'CONFIRMED' } });
      assert.equal(landed, 1, `invoice ${inv.id} (${inv.currency}): ${landed} forwards landed; ${await stack.dump(inv.id)}`);
      const completed = stack.hooks.filter((h) => h.id === inv.id && h.status === 'COMPLETED');
      assert.equal(completed.length, 1, `invoice ${inv.id}: ${completed.length} COMPLETED webhooks`);
    }
    await assertReconciled(db, stack.chain, 180_000);
    // ... and the operator's command says the same, with the settings a worker has.
    const env = { ...process.env, ...stack.app.env, TRON_FULL_NODE_URL: stack.devnet.url, TRON_USDT_CONTRACT: stack.devnet.usdtContract };
    const reconcile = spawn(process.execPath, scriptArgs('scripts/reconcile.ts'), { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    reconcile.stdout.on('data', (d) => (output += d));
    reconcile.stderr.on('data', (d) => (output += d));
    const code = await new Promise<number | null>((r) => reconcile.once('exit', r));
    assert.equal(code, 0, output);
    assert.match(output, /checked against the chain: balanced/);
  });
});
