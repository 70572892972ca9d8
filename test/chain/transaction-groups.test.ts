import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { TronWeb } from 'tronweb';
import type { Merchant, Transaction } from '@/lib/generated/prisma/client';
import { createChain, type Chain } from '@/lib/chain';
import { deriveAccount } from '@/lib/chain/keys';
import { passwordHash } from '../helpers/accounts';
import { tokenAmountJson, tokenUnits } from '@/lib/money/tokens';
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
 * group; the merchant API's list unchanged (every row, flat). Then a two-target USDT payout: one row
 * saying the total of its targets and how many addresses.
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

  // Issue 38, item 4: a mass payout is one group, and its row said its first target's transfer ("Transfer out 1 USDT")
  // as if that were all it moved; it says the total of its targets and how many addresses.
  it('a two-target payout\'s row says the total of its targets and to how many addresses, its targets behind it', async () => {
    // The first target is less than the sale's payment (10 USDT), the total more: ordered by amount, the payout goes by its total.
    const targets = [{ address: randomAddress(), amount: 1.000001 }, { address: randomAddress(), amount: 9.5 }];
    const created = await app.api('/payment/multiple_transfer/create', key, { method: 'POST', body: { currency: 'USDT', target_wallets: targets } });
    assert.equal(created.status, 200, created.text);
    const payout = created.json as { id: number; address: string; currencies_amounts: Record<string, number> };
    await devnet.pay(payout.address, String(payout.currencies_amounts.USDT), 'USDT');
    await waitFor(`payout ${payout.id} COMPLETED`, async () => (await app.api(`/payment/get/${payout.id}`, key)).json.status === 'COMPLETED', 90_000);
    // As above: every send final, and what the pool lent each address (the payout's too) taken back.
    await waitFor('the payout\'s sends final and its lending taken back', async () => {
      const open = await app.prisma.transaction.count({ where: { merchantId: merchant.id, sendState: { in: ['SIGNED', 'BROADCAST'] } } });
      const lent = await app.prisma.transaction.findMany({ where: { merchantId: merchant.id, type: 'DELEGATE', sendState: 'CONFIRMED' }, select: { toAddress: true, resource: true } });
      const back = await app.prisma.transaction.count({ where: { merchantId: merchant.id, sendPurpose: 'ENERGY_RECLAIM', sendState: 'CONFIRMED' } });
      return open === 0 && back >= new Set(lent.map((l) => `${l.toAddress}:${l.resource}`)).size;
    }, 120_000);

    const sent = await app.prisma.transaction.findMany({ where: { invoiceId: payout.id, sendPurpose: 'PAYOUT_TARGET', sendState: 'CONFIRMED' }, orderBy: { id: 'asc' } });
    assert.deepEqual(sent.map((t) => t.toAddress).sort(), targets.map((t) => t.address).sort(), 'one transfer per target');
    const total = sent.reduce((sum, t) => sum + t.amountUnits, 0n);
    assert.equal(total, tokenUnits(10.500001));

    const all = await flat();
    const { count, rows } = await groups();
    assert.equal(count, rows.length);
    const payoutRows = rows.filter((r) => r.invoice === payout.id);
    assert.deepEqual(payoutRows.map((r) => [r.type, r.send_purpose]).sort(), [['TOPUP', null], ['TRANSFER', 'PAYOUT_TARGET']], `the payout is one row, its top-up another: ${JSON.stringify(payoutRows.map((r) => [r.type, r.send_purpose, r.amount]))}`);
    const row = payoutRows.find((r) => r.send_purpose === 'PAYOUT_TARGET')!;
    // What the payout moved: the sum of its targets' transfers, in its token, and to how many addresses.
    assert.equal(row.currency, 'USDT');
    assert.equal(row.group_amount, tokenAmountJson(total));
    assert.equal(row.group_targets, 2);
    assert.equal(row.trn_hash, sent[0]!.trnHash, 'listed under its first target\'s transfer');
    assert.equal(row.amount, tokenAmountJson(sent[0]!.amountUnits), 'the row\'s own transfer is still its amount');
    // The other target is behind it with the steps, so the row and its steps add up to the total.
    const groupTargets = [row, ...row.plumbing].filter((p) => p.send_purpose === 'PAYOUT_TARGET');
    assert.deepEqual(groupTargets.map((p) => p.to_address).sort(), targets.map((t) => t.address).sort());
    assert.equal(groupTargets.reduce((sum, p) => sum + tokenUnits(p.amount), 0n), tokenUnits(row.group_amount!));
    assert.ok(row.plumbing.some((p) => p.send_purpose === 'PAYOUT_ENERGY' || p.send_purpose === 'PAYOUT_GAS'), `the payout's steps: ${row.plumbing.map((p) => p.send_purpose)}`);
    // Its network cost is still the group's: every row's.
    assert.equal(tokenUnits(row.group_network_cost_trx), [row, ...row.plumbing].reduce((sum, m) => sum + tokenUnits(m.network_cost_trx), 0n));
    // Every other row is as it was: a refund is one transfer, its amount; a payment, a forward, a top-up have no targets.
    for (const other of rows.filter((r) => r !== row)) assert.deepEqual([other.group_amount, other.group_targets], [null, null], `${other.type} ${other.trn_hash}`);
    for (const step of rows.flatMap((r) => r.plumbing)) assert.equal((step as Partial<DashboardTransactionRow>).group_amount, undefined, 'steps carry no total');
    assert.equal(rows.find((r) => r.type === 'REFUND')!.amount, 8);

    // Ordered by amount, each group by the amount its row shows (the payout by its total, not its first target's).
    const shown = (r: DashboardTransactionRow) => tokenUnits(r.group_amount ?? r.amount);
    for (const ordering of ['amount', '-amount']) {
      const ordered = (await groups({ ordering })).rows.map(shown);
      const sorted = [...ordered].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
      assert.deepEqual(ordered, ordering === 'amount' ? sorted : sorted.reverse(), `ordering=${ordering}: ${ordered}`);
    }
    // The type filter still finds it as a TRANSFER; REFUND does not.
    assert.ok((await groups({ type: 'TRANSFER' })).rows.some((r) => r.trn_hash === row.trn_hash));
    assert.ok(!(await groups({ type: 'REFUND' })).rows.some((r) => r.trn_hash === row.trn_hash));

    // The route answers the same; the CSV is flat as before, each target its own line under the payout's row, adding up to its total.
    await app.prisma.user.updateMany({ where: { memberships: { some: { merchantId: merchant.id } } }, data: { passwordHash: await passwordHash('groups dashboard pw') } });
    const browser = new DashboardSession(app.baseUrl);
    assert.equal(await browser.signIn(merchant.email, 'groups dashboard pw'), null);
    const answered = (await browser.api('/transactions?limit=300')).json as { results: DashboardTransactionRow[] };
    assert.deepEqual(answered.results.find((r) => r.invoice === payout.id && r.send_purpose === 'PAYOUT_TARGET'), JSON.parse(JSON.stringify(row)));
    const detail = (await browser.api(`/invoices/${payout.id}`)).json as { transactions: { results: DashboardTransactionRow[] } };
    const listed = detail.transactions.results.find((r) => r.trn_hash === row.trn_hash);
    assert.deepEqual([listed?.group_amount, listed?.group_targets], [row.group_amount, 2], 'the invoice\'s transactions say it too');
    const csv = (await browser.request('/dashboard/api/transactions/export')).text.replace(/^\uFEFF/, '').trim().split('\r\n');
    const header = csv[0]!.split(',');
    const lines = csv.slice(1).map((l) => Object.fromEntries(l.split(',').map((c, i) => [header[i], c])));
    assert.equal(lines.length, all.length);
    const targetLines = lines.filter((l) => l.group === row.trn_hash && targets.some((t) => t.address === l.to_address));
    assert.equal(targetLines.length, 2);
    assert.equal(targetLines.reduce((sum, l) => sum + tokenUnits(l.amount!), 0n), total);

    // The merchant API is unchanged: the targets are two flat TRANSFER rows, with the spec's fields only.
    const api = (await app.api(`/transaction/list?limit=300&invoice_id=${payout.id}&type=TRANSFER`, key)).json as { results: Record<string, unknown>[] };
    const apiTargets = api.results.filter((t) => targets.some((x) => x.address === t.to_address));
    assert.deepEqual(apiTargets.map((t) => t.amount).sort(), targets.map((t) => t.amount).sort());
    for (const t of api.results) assert.deepEqual(Object.keys(t).sort(), ['aml_check', 'amount', 'created_at', 'currency', 'event_id', 'from_address', 'held', 'invoice', 'to_address', 'trn_hash', 'type']);

    await assertReconciled(app.prisma, chain);
  });
});
