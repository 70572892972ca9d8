import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { TronWeb } from 'tronweb';
import type { Merchant, Transaction } from '@/lib/generated/prisma/client';
import { createChain, type Chain } from '@/lib/chain';
import { deriveAccount } from '@/lib/chain/keys';
import { passwordHash } from '../helpers/accounts';
import { tokenUnits } from '@/lib/money/tokens';
import { dashboardTransactionRows, type DashboardTransactionRow } from '@/lib/transactions/releases';
import { dashboardTransactionsQuerySchema, listTransactionsQuerySchema } from '@/lib/transactions/schemas';
import { listTransactions, transactionBatches } from '@/lib/transactions/service';
import { splitPage } from '@/lib/schemas/page';
import { startApp, TEST_MNEMONIC, type TestApp } from '../helpers/app';
import { startDevnetProcess, waitFor, type DevnetProcess } from '../helpers/devnet';
import { DashboardSession } from '../helpers/session';
import { assertReconciled } from '../helpers/reconcile';
import { startWorker, type WorkerProcess } from '../helpers/worker';

const randomAddress = () => (TronWeb.createRandom() as unknown as { address: string }).address;

/**
 * The dashboard's transactions grouped (issue 38, item 4; docs/dashboard.md): a USDT sale forwarded
 * and 8 USDT of it refunded by the real worker on the devnet, with the pool's lending, gas and the
 * taking back that go with each. One row per payment, forward and refund; the plumbing in the group
 * of the send it was for, its cost folded in exactly; pages of groups; the CSV with every row and its
 * group; the merchant API's list unchanged (every row, flat).
 */
describe('transactions grouped by what the merchant cares about', () => {
  let devnet: DevnetProcess;
  let app: TestApp;
  let worker: WorkerProcess;
  let chain: Chain;
  let key: string;
  let merchant: Merchant;

  const q = (query: Record<string, string> = {}) => splitPage(dashboardTransactionsQuerySchema.parse({ limit: '300', ...query }));
  async function groups(query: Record<string, string> = {}): Promise<{ count: number; rows: DashboardTransactionRow[] }> {
    const { filter, page } = q(query);
    const { count, rows } = await listTransactions(app.prisma, merchant.id, filter, page, 'dashboard');
    return { count, rows: await dashboardTransactionRows(app.prisma, rows) };
  }
  async function flat(): Promise<Transaction[]> {
    const rows: Transaction[] = [];
    for await (const batch of transactionBatches(app.prisma, merchant.id, q().filter, 'dashboard')) rows.push(...batch);
    return rows;
  }

  before(async () => {
    devnet = await startDevnetProcess({ blockMs: 100, solidifiedDepth: 3 });
    app = await startApp({ TRON_FULL_NODE_URL: devnet.url, TRON_USDT_CONTRACT: devnet.usdtContract });
    chain = createChain({ fullNodeUrl: devnet.url, apiKey: null, usdtContract: devnet.usdtContract, txExpirationMs: 60_000 });
    ({ key, merchant } = await app.createMerchant({ targetWallet: randomAddress() }));
    // The pool stakes the gas wallet's TRX (as energy-pool.test.ts does), so the sends borrow energy and give it back: the plumbing of the refund.
    await devnet.pay(deriveAccount(TEST_MNEMONIC, 0, 'gas').address, '400000', 'TRX');
    worker = startWorker(app.env, devnet, { ENERGY_POOL_AUTOSTAKE: '300000:30000' });
    await waitFor('the pool staked', async () => (await app.prisma.transaction.count({ where: { sendPurpose: 'POOL_STAKE', sendState: 'CONFIRMED' } })) === 2 || null, 180_000);
  });

  after(async () => {
    await worker?.stop();
    await app?.stop();
    await devnet?.stop();
  });

  it('one row per payment, forward and refund, the plumbing behind it with its cost folded in, paged and exported by groups', async () => {
    const sale = (await app.api('/payment/create', key, { method: 'POST', body: { type: 'SINGLE', amount: 10, currencies: ['USDT'] } })).json as { id: number; address: string; currencies_amounts: Record<string, number> };
    await devnet.pay(sale.address, String(sale.currencies_amounts.USDT), 'USDT');
    await waitFor(`invoice ${sale.id} COMPLETED`, async () => (await app.api(`/payment/get/${sale.id}`, key)).json.status === 'COMPLETED', 60_000);
    const customer = randomAddress();
    const refund = (await app.api(`/payment/${sale.id}/refund`, key, { method: 'POST', body: { currency: 'USDT', amount: 8, address: customer } })).json as { id: number; payout: number; topup_address: string; topup_amount: number };
    await devnet.pay(refund.topup_address, String(refund.topup_amount), 'USDT');
    await waitFor(`refund ${refund.id} SENT`, async () => (await app.api(`/refund/${refund.id}`, key)).json.status === 'SENT', 90_000);
    // Everything out final, and what the pool lent each address taken back (the latest lending of each address and resource is; once the address is idle).
    let seen = '';
    await waitFor('every send final and every lending taken back', async () => {
      seen = JSON.stringify(await app.prisma.transaction.findMany({ where: { merchantId: merchant.id }, select: { id: true, type: true, sendPurpose: true, sendState: true, sendIndex: true, sourceId: true, toAddress: true, resource: true, energySource: true }, orderBy: { id: 'asc' } }));
      const open = await app.prisma.transaction.count({ where: { merchantId: merchant.id, sendState: { in: ['SIGNED', 'BROADCAST'] } } });
      const lent = await app.prisma.transaction.findMany({ where: { merchantId: merchant.id, type: 'DELEGATE', sendState: 'CONFIRMED' }, select: { toAddress: true, resource: true } });
      const back = await app.prisma.transaction.count({ where: { merchantId: merchant.id, sendPurpose: 'ENERGY_RECLAIM', sendState: 'CONFIRMED' } });
      return open === 0 && lent.length > 0 && back >= new Set(lent.map((l) => `${l.toAddress}:${l.resource}`)).size;
    }, 120_000).catch((err: Error) => assert.fail(`${err.message}: ${seen}`));
    const all = await flat();
    const { count, rows } = await groups();
    // One row each: the sale's payment, its forward, the refund's top-up, the refund's send.
    assert.deepEqual(rows.map((r) => [r.type, r.send_purpose]).sort(), [['PAYMENT', null], ['REFUND', 'PAYOUT_TARGET'], ['TOPUP', null], ['TRANSFER', 'FORWARD']].sort(), JSON.stringify(rows.map((r) => [r.type, r.send_purpose])));
    assert.equal(count, 4, 'the count counts groups');
    // Every row of the flat list is in exactly one group: as a head or behind one.
    const listed = rows.flatMap((r) => [r.trn_hash + ':' + r.send_purpose, ...r.plumbing.map((p) => p.trn_hash + ':' + p.send_purpose)]);
    assert.deepEqual([...listed].sort(), all.map((t) => t.trnHash + ':' + t.sendPurpose).sort());
    assert.ok(all.length > 4, `the plumbing is there: ${all.length} rows`);

    const forward = rows.find((r) => r.send_purpose === 'FORWARD')!;
    const refundRow = rows.find((r) => r.type === 'REFUND')!;
    assert.deepEqual(refundRow.refund, { id: refund.id, invoice: sale.id });
    assert.equal(refundRow.amount, 8);
    const steps = (r: DashboardTransactionRow) => r.plumbing.map((p) => p.send_purpose).sort();
    assert.ok(steps(forward).includes('FORWARD_ENERGY') && steps(forward).includes('ENERGY_RECLAIM'), `forward's plumbing: ${steps(forward)}`);
    assert.ok(steps(refundRow).includes('PAYOUT_GAS') && steps(refundRow).includes('PAYOUT_ENERGY') && steps(refundRow).includes('ENERGY_RECLAIM'), `refund's plumbing: ${steps(refundRow)}`);
    for (const r of rows) {
      // Exact, in sun: the folded cost is the sum of the group's rows' costs, and what the ledger booked and the rentals charged for them.
      const members = [r, ...r.plumbing];
      const summed = members.reduce((s, m) => s + tokenUnits(m.network_cost_trx), 0n);
      assert.equal(tokenUnits(r.group_network_cost_trx), summed, `group of ${r.trn_hash}`);
      const ids = all.filter((t) => members.some((m) => m.trn_hash === t.trnHash && m.send_purpose === t.sendPurpose)).map((t) => t.id);
      const booked = await app.prisma.ledgerEntry.aggregate({ where: { transactionId: { in: ids }, kind: 'NETWORK_COST' }, _sum: { units: true } });
      const head = all.find((t) => t.trnHash === r.trn_hash && t.sendPurpose === r.send_purpose)!;
      const rented = head.sourceId === null || head.sendPurpose === null ? 0n : ((await app.prisma.energyRental.aggregate({ where: { paymentId: head.sourceId, purpose: head.sendPurpose }, _sum: { priceSun: true } }))._sum.priceSun ?? 0n);
      assert.equal(summed, (booked._sum.units ?? 0n) + rented, `ledger of ${r.trn_hash}`);
    }
    assert.ok(tokenUnits(refundRow.group_network_cost_trx) > 0n, 'a USDT refund costs something');
    assert.equal(rows.find((r) => r.type === 'PAYMENT')!.plumbing.length, 0);

    // Pages of one group each never split one: together they are the whole list, in its order.
    const paged: DashboardTransactionRow[] = [];
    for (let offset = 0; offset < count; offset++) {
      const page = await groups({ limit: '1', offset: String(offset) });
      assert.equal(page.count, count);
      paged.push(...page.rows);
    }
    assert.deepEqual(paged, rows);
    assert.deepEqual((await groups({ ordering: 'created_at' })).rows.map((r) => r.trn_hash), rows.map((r) => r.trn_hash).reverse());

    // A filter finds the groups with a row it matches: a lending's hash finds the refund it was for.
    const lending = refundRow.plumbing.find((p) => p.send_purpose === 'PAYOUT_ENERGY')!;
    assert.deepEqual((await groups({ search: lending.trn_hash })).rows.map((r) => r.trn_hash), [refundRow.trn_hash]);
    assert.deepEqual((await groups({ type: 'DELEGATE' })).rows.map((r) => r.trn_hash).sort(), [forward.trn_hash, refundRow.trn_hash].sort());
    const today = new Date().toISOString().slice(0, 10);
    assert.deepEqual([(await groups({ date_from: today, date_to: today })).count, (await groups({ date_to: '2000-01-01' })).count], [count, 0], 'the UTC days');
    // The day after the last one a date input takes is in year 10000: still a bound, not a 500 (test/api/fuzz.test.ts found it).
    assert.equal((await groups({ date_from: '0001-01-01', date_to: '9999-12-31' })).count, count, 'the widest range');
    const onlyRefund = await groups({ type: 'REFUND' });
    assert.deepEqual([onlyRefund.count, onlyRefund.rows[0]!.plumbing.length], [1, refundRow.plumbing.length]);

    // The dashboard's route answers the groups; its CSV has every row, each with its own cost and the row it is listed under.
    await app.prisma.user.updateMany({ where: { memberships: { some: { merchantId: merchant.id } } }, data: { passwordHash: await passwordHash('groups dashboard pw') } });
    const browser = new DashboardSession(app.baseUrl);
    assert.equal(await browser.signIn(merchant.email, 'groups dashboard pw'), null);
    const answered = (await browser.api('/transactions?limit=300')).json as { count: number; results: DashboardTransactionRow[] };
    assert.deepEqual(answered, JSON.parse(JSON.stringify({ count, next: null, previous: null, results: rows })));
    const csv = (await browser.request('/dashboard/api/transactions/export')).text.replace(/^\uFEFF/, '').trim().split('\r\n');
    const header = csv[0]!.split(',');
    assert.deepEqual(header.slice(-2), ['network_cost_trx', 'group']);
    const lines = csv.slice(1).map((l) => Object.fromEntries(l.split(',').map((c, i) => [header[i], c])));
    assert.equal(lines.length, all.length, 'every movement is in the export');
    for (const r of rows) {
      const mine = lines.filter((l) => l.group === r.trn_hash);
      assert.equal(mine.length, 1 + r.plumbing.length, `the group of ${r.trn_hash} in the CSV`);
      assert.equal(mine.reduce((s, l) => s + tokenUnits(l.network_cost_trx!), 0n), tokenUnits(r.group_network_cost_trx));
    }

    // The merchant API is unchanged: its list is flat, every row of the spec's types, plumbing and all.
    const api = (await app.api('/transaction/list?limit=300', key)).json as { count: number; results: { trn_hash: string; type: string }[] };
    const apiTypes = all.filter((t) => ['PAYMENT', 'TRANSFER', 'TOPUP', 'ACTIVATION'].includes(t.type));
    assert.equal(api.count, apiTypes.length);
    assert.deepEqual(Object.keys(api.results[0]!).sort(), ['aml_check', 'amount', 'created_at', 'currency', 'event_id', 'from_address', 'held', 'invoice', 'to_address', 'trn_hash', 'type']);
    assert.ok(api.results.some((t) => t.type === 'ACTIVATION'), 'the gas sends are still listed by the API');
    const { filter, page } = splitPage(listTransactionsQuerySchema.parse({ limit: '300' }));
    assert.equal((await listTransactions(app.prisma, merchant.id, filter, page, 'api')).rows.length, apiTypes.length);

    await assertReconciled(app.prisma, chain);
  });
});
