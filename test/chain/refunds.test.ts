import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { TronWeb } from 'tronweb';
import { Webhook } from 'standardwebhooks';
import { webhookSecret } from '@/lib/merchants/settings';
import type { Merchant } from '@/lib/generated/prisma/client';
import { createChain, type Chain } from '@/lib/chain';
import { deriveAccount } from '@/lib/chain/keys';
import { tokenAmountText, tokenUnits } from '@/lib/money/tokens';
import { startApp, TEST_MNEMONIC, type TestApp } from '../helpers/app';
import { startDevnetProcess, waitFor, type DevnetProcess } from '../helpers/devnet';
import { passwordHash } from '../helpers/accounts';
import { httpRequest, startHookReceiver, type HookReceiver } from '../helpers/http';
import { DashboardSession } from '../helpers/session';
import { assertReconciled } from '../helpers/reconcile';
import { startWorker, type WorkerProcess } from '../helpers/worker';

const randomAddress = () => (TronWeb.createRandom() as unknown as { address: string }).address;

/**
 * Merchant refunds (issue 36, docs/refunds.md) on the devnet with the real web and worker: through
 * the API to an address the merchant names, and through the claim link where the customer enters
 * one; the merchant tops up each refund's payout, the customer receives exactly the amount, and
 * the books balance. Nothing is written to the database by the test.
 */
describe('merchant refunds on the devnet', () => {
  let devnet: DevnetProcess;
  let app: TestApp;
  let worker: WorkerProcess;
  let chain: Chain;
  let key: string;
  let otherKey: string;
  let merchant: Merchant;
  let receiver: HookReceiver;
  /** The refund events received for refund `id`, in order: `event` of each signed body. */
  const refundEvents = (id: number) => receiver.hooks.map((h) => JSON.parse(h.body)).filter((b) => b.id === id && typeof b.event === 'string').map((b) => b.event as string);

  const post = (path: string, body: unknown, k = key, headers: Record<string, string> = {}) => app.api(path, k, { method: 'POST', body, headers });
  const refund = async (id: number, k = key) => (await app.api(`/refund/${id}`, k)).json;
  const waitRefund = (id: number, status: string) =>
    waitFor(`refund ${id} to be ${status}`, async () => {
      const r = await refund(id);
      return r.status === status ? r : null;
    }, 90_000);

  /** A sale paid in full by a wallet (the devnet's faucet), COMPLETED by the worker. */
  async function paidSale(currency: 'TRX' | 'USDT') {
    const res = await post('/payment/create', { type: 'SINGLE', amount: 10, currencies: [currency] });
    assert.equal(res.status, 200, res.text);
    const inv = res.json as { id: number; address: string; currencies_amounts: Record<string, number> };
    await devnet.pay(inv.address, String(inv.currencies_amounts[currency]), currency);
    await waitFor(`invoice ${inv.id} COMPLETED`, async () => (await app.api(`/payment/get/${inv.id}`, key)).json.status === 'COMPLETED', 60_000);
    return inv;
  }

  before(async () => {
    devnet = await startDevnetProcess({ blockMs: 100, solidifiedDepth: 3 });
    app = await startApp({ TRON_FULL_NODE_URL: devnet.url, TRON_USDT_CONTRACT: devnet.usdtContract, PUBLIC_BASE_URL: 'https://pay.example.com' });
    chain = createChain({ fullNodeUrl: devnet.url, apiKey: null, usdtContract: devnet.usdtContract, txExpirationMs: 60_000 });
    receiver = await startHookReceiver();
    ({ key, merchant } = await app.createMerchant({ targetWallet: randomAddress() }));
    // Opted in to the refund webhooks (a setting; off by default).
    merchant = await app.prisma.merchant.update({ where: { id: merchant.id }, data: { webhookUrl: receiver.url, webhookRefundEvents: true } });
    ({ key: otherKey } = await app.createMerchant({ targetWallet: randomAddress() }));
    await devnet.pay(deriveAccount(TEST_MNEMONIC, 0, 'gas').address, '10000', 'TRX');
    worker = startWorker(app.env, devnet);
  });

  after(async () => {
    await worker?.stop();
    await app?.stop();
    await devnet?.stop();
    receiver?.close();
  });

  it('refunds part of a TRX sale to an address the merchant names: topped up (1 TRX too much), sent exactly, never more than the sale received', async () => {
    const sale = await paidSale('TRX');
    const customer = randomAddress();
    const idem = { 'Idempotency-Key': `refund-${sale.id}` };
    const created = await post(`/payment/${sale.id}/refund`, { currency: 'trx', amount: 15, address: customer, reason: 'Returned the blue teapot' }, key, idem);
    assert.equal(created.status, 200, created.text);
    const r = created.json;
    assert.deepEqual(
      { ...r, id: 0, payout: 0, topup_address: '', topup_amount: 0, cost: 0, created_at: '' },
      { id: 0, invoice: sale.id, status: 'WAITING_FUNDS', failure_reason: null, currency: 'TRX', amount: 15, address: customer, claim_url: null, reason: 'Returned the blue teapot', payout: 0, topup_address: '', topup_amount: 0, cost: 0, funded_from_held: null, trn_hash: null, created_at: '' },
    );
    // The customer's 15 TRX and its network cost, no service fee; the new account's creation is in the cost.
    assert.ok(r.cost > 1 && r.cost < 3, `cost ${r.cost}`);
    assert.equal(tokenUnits(r.topup_amount), tokenUnits(r.amount) + tokenUnits(r.cost));
    assert.ok(TronWeb.isAddress(r.topup_address));
    const again = await post(`/payment/${sale.id}/refund`, { currency: 'trx', amount: 15, address: customer, reason: 'Returned the blue teapot' }, key, idem);
    assert.equal(again.headers['idempotent-replayed'], 'true');
    assert.equal(again.json.id, r.id, 'a repeated key makes no second refund');
    // Its payout is a one-target mass payout the merchant can see and top up like any other.
    const payout = (await app.api(`/payment/get/${r.payout}`, key)).json;
    assert.deepEqual([payout.type, payout.address, payout.description, payout.currencies_amounts], ['MULTIPLE_TRANSFER', r.topup_address, `Refund of invoice #${sale.id}`, { TRX: r.topup_amount }]);

    // 40 TRX received, 15 refunding: 25 more at most.
    const over = await post(`/payment/${sale.id}/refund`, { currency: 'TRX', amount: '25.000001', address: customer });
    assert.equal(over.status, 400, over.text);
    assert.match(over.json.detail, /^amount: At most 25 TRX can be refunded: invoice #\d+ received 40 TRX, and 15 is refunded or being refunded\.$/);
    assert.deepEqual((await app.api(`/payment/${sale.id}/refunds`, key)).json.map((x: { id: number }) => x.id), [r.id]);

    // The merchant sends 1 TRX more than asked: the customer still gets exactly the amount, and the rest stays at the payout's address, in the books.
    await devnet.pay(r.topup_address, tokenAmountText(tokenUnits(r.topup_amount) + 1_000_000n), 'TRX');
    const sent = await waitRefund(r.id, 'SENT');
    assert.equal(sent.topup_amount, 0);
    assert.ok(sent.trn_hash);
    assert.equal(await chain.getTrxBalance(customer), 15_000_000n, 'the customer received exactly the amount');
    assert.ok((await chain.getTrxBalance(r.topup_address)) >= 1_000_000n, 'the excess stays at the payout address');
    assert.equal((await app.api(`/refund/${r.id}/cancel`, key, { method: 'DELETE' })).json.detail, 'Refund cannot be canceled: it is SENT.');
    // The opt-in events, signed as every webhook: made, then sent (told by the worker once its payout paid the customer).
    await waitFor('both refund events delivered', async () => refundEvents(r.id).length >= 2, 30_000);
    assert.deepEqual(refundEvents(r.id).sort(), ['refund.created', 'refund.sent']);
    const sentHook = receiver.hooks.find((h) => JSON.parse(h.body).event === 'refund.sent' && JSON.parse(h.body).id === r.id)!;
    const body = new Webhook(webhookSecret(merchant), { format: 'raw' }).verify(sentHook.body, sentHook.headers as Record<string, string>) as { status: string; trn_hash: string };
    assert.deepEqual([body.status, body.trn_hash], ['SENT', sent.trn_hash]);

    // The dashboard lists and exports the send as a REFUND of the sale; the API answers it as the TRANSFER it is (spec 2.2).
    await app.prisma.user.updateMany({ where: { memberships: { some: { merchantId: merchant.id } } }, data: { passwordHash: await passwordHash('refund dashboard pw') } });
    const browser = new DashboardSession(app.baseUrl);
    assert.equal(await browser.signIn(merchant.email, 'refund dashboard pw'), null);
    const refunds = (await browser.api('/transactions?type=REFUND')).json.results as { trn_hash: string; type: string; invoice: number; refund: unknown }[];
    assert.deepEqual(refunds.map((t) => [t.trn_hash, t.type, t.invoice, t.refund]), [[sent.trn_hash, 'REFUND', r.payout, { id: r.id, invoice: sale.id }]]);
    assert.ok(!(await browser.api('/transactions?type=TRANSFER')).json.results.some((t: { trn_hash: string }) => t.trn_hash === sent.trn_hash), 'not a TRANSFER in the dashboard');
    assert.ok((await browser.api('/transactions?search=refund')).json.results.some((t: { trn_hash: string }) => t.trn_hash === sent.trn_hash), 'found by the word');
    assert.equal((await app.api(`/transaction/${sent.trn_hash}`, key)).json.type, 'TRANSFER');
    assert.ok((await app.api('/transaction/list?type=TRANSFER&limit=300', key)).json.results.some((t: { trn_hash: string }) => t.trn_hash === sent.trn_hash));
    assert.equal((await app.api('/transaction/list?type=REFUND', key)).status, 400, 'the API has no REFUND type');
    const csv = (await browser.request('/dashboard/api/transactions/export?type=REFUND')).text;
    assert.match(csv, new RegExp(`,${sent.trn_hash},${r.payout},REFUND,TRX,15,`));

    // The 1 TRX too much is the merchant's: the refund's card shows it, and it goes back by its payout's return (docs/payouts.md, "Returning the excess").
    const excessOf = async () => (await browser.api(`/invoices/${sale.id}/refunds`)).json.payout_returns[String(r.payout)];
    assert.deepEqual(await excessOf(), { currency: 'TRX', excess: 1, returnable: true, return: null });
    // To a new account it would cost more than it is (1.1 TRX to create the account): refused, nothing burned.
    const uneconomic = await browser.api(`/payouts/${r.payout}/return`, 'POST', { address: randomAddress() });
    assert.equal(uneconomic.status, 400, uneconomic.text);
    assert.match(uneconomic.json.detail, /^Nothing to return: the 1 TRX that arrived beyond this payout's top-up would not pay the 1\.\d+ TRX network cost of sending it back\.$/);
    const wallet = randomAddress();
    await devnet.pay(wallet, '1', 'TRX');
    const asked = await browser.api(`/payouts/${r.payout}/return`, 'POST', { address: wallet });
    assert.equal(asked.status, 200, asked.text);
    await waitFor('the excess returned', async () => (await excessOf()).return?.returned_at, 60_000);
    const back = await app.prisma.transaction.findFirstOrThrow({ where: { invoiceId: r.payout, sendPurpose: 'PAYOUT_RETURN', sendState: 'CONFIRMED' } });
    assert.equal(back.amountUnits + back.feeSun!, 1_000_000n, 'exactly the excess, less what sending it cost');
    assert.equal(await chain.getTrxBalance(wallet), 1_000_000n + back.amountUnits, 'the address received it');
    assert.equal(await chain.getTrxBalance(customer), 15_000_000n, 'the customer still has exactly the refund');
    const payoutRow = await app.prisma.invoice.findUniqueOrThrow({ where: { id: r.payout }, include: { amounts: true } });
    const toCustomer = await app.prisma.transaction.findFirstOrThrow({ where: { invoiceId: r.payout, sendPurpose: 'PAYOUT_TARGET', sendState: 'CONFIRMED' } });
    assert.equal(await chain.getTrxBalance(r.topup_address), payoutRow.amounts[0]!.feeUnits - toCustomer.feeSun!, 'what stays is the network margin the refund was quoted, less what its send burned');
    assert.deepEqual([(await refund(r.id)).status, (await refund(r.id)).cost], ['SENT', r.cost], 'the refund is unchanged');
    assert.equal((await excessOf()).excess, 0);
    await assertReconciled(app.prisma, chain);
  });

  it('refuses what cannot be refunded, with the spec\'s error shapes', async () => {
    const sale = await paidSale('TRX');
    const customer = randomAddress();
    const refused = async (path: string, body: unknown, status: number, detail: RegExp, k = key) => {
      const res = await post(path, body, k);
      assert.equal(res.status, status, `${path} ${JSON.stringify(body)}: ${res.text}`);
      assert.match(res.json.detail, detail, JSON.stringify(body));
    };
    await refused(`/payment/${sale.id}/refund`, { currency: 'TRX', amount: 1, address: customer }, 404, /^No Invoice matches the given query\.$/, otherKey);
    await refused(`/payment/${sale.id}/refund`, { currency: 'USDT', amount: 1 }, 400, /^currency: Invoice #\d+ does not take USDT/);
    await refused(`/payment/${sale.id}/refund`, { currency: 'TRX', amount: 0 }, 400, /^amount: /);
    await refused(`/payment/${sale.id}/refund`, { currency: 'TRX', amount: 1, address: customer.slice(0, -1) + (customer.endsWith('a') ? 'b' : 'a') }, 400, /^address: .*checksum/);
    await refused(`/payment/${sale.id}/refund`, { currency: 'TRX', amount: 1, address: devnet.usdtContract }, 400, /^address: This address is a smart contract/);
    await refused(`/payment/${sale.id}/refund`, { currency: 'TRX', amount: 1, reason: 'x'.repeat(501) }, 400, /^reason: /);
    const unpaid = (await post('/payment/create', { type: 'SINGLE', amount: 10, currencies: ['TRX'] })).json;
    await refused(`/payment/${unpaid.id}/refund`, { currency: 'TRX', amount: 1, address: customer }, 400, /^amount: Invoice #\d+ has received no TRX to refund\.$/);
    const massPayout = (await post('/payment/multiple_transfer/create', { currency: 'TRX', target_wallets: [{ address: customer, amount: 1 }] })).json;
    await refused(`/payment/${massPayout.id}/refund`, { currency: 'TRX', amount: 1 }, 400, /^A mass payout cannot be refunded/);
    assert.equal((await app.api('/refund/999999', key)).status, 404);
    assert.equal(await app.prisma.refund.count({ where: { invoiceId: { in: [sale.id, unpaid.id, massPayout.id] } } }), 0, 'nothing refused was recorded');
  });

  it('a claim link: the customer enters their address once (a contract refused), the merchant tops up, the USDT arrives', async () => {
    const sale = await paidSale('USDT');
    const r = (await post(`/payment/${sale.id}/refund`, { currency: 'USDT', amount: 10 })).json;
    assert.equal(r.status, 'WAITING_ADDRESS');
    assert.deepEqual([r.address, r.topup_address, r.topup_amount, r.cost, r.payout], [null, null, null, null, null]);
    const link = new URL(r.claim_url);
    assert.equal(link.origin, 'https://pay.example.com');
    assert.equal(link.pathname, `/payment/refund/${r.id}`);
    const claimKey = link.searchParams.get('k')!;
    const page = (what: string, k = claimKey) => `${app.baseUrl}/payment/refund/${r.id}/${what}?k=${encodeURIComponent(k)}`;
    const claim = (body: unknown, k = claimKey) => httpRequest(page('claim', k), { method: 'POST', body });

    // The link opens nothing without its key; with it, the page offers the claim and nothing of the merchant's records.
    assert.equal((await httpRequest(page('status', 'x'.repeat(22)))).status, 404);
    assert.equal((await claim({ address: randomAddress() }, 'x'.repeat(22))).status, 404);
    const view = (await httpRequest(page('status'))).json;
    assert.deepEqual(view, { id: r.id, invoice: sale.id, status: 'WAITING_ADDRESS', currency: 'USDT', amount: '10', address: null, claimable: true, sent: null, merchant: null });
    const html = await httpRequest(`${app.baseUrl}/payment/refund/${r.id}?k=${claimKey}`);
    assert.equal(html.status, 200);
    assert.match(html.text, /Enter your address to receive it/);
    assert.equal((await httpRequest(`${app.baseUrl}/payment/refund/${r.id}`)).status, 404, 'the page too needs the key');

    const contract = await claim({ address: devnet.usdtContract });
    assert.equal(contract.status, 400, contract.text);
    assert.match(contract.json.detail, /^address: This address is a smart contract/);
    const customer = randomAddress();
    const claimed = await claim({ address: customer });
    assert.equal(claimed.status, 200, claimed.text);
    assert.deepEqual([claimed.json.status, claimed.json.address, claimed.json.claimable], ['WAITING_FUNDS', customer, false]);
    const twice = await claim({ address: randomAddress() });
    assert.equal(twice.status, 400);
    assert.equal(twice.json.detail, 'This refund already has its address; it cannot be changed.');

    const funded = await refund(r.id);
    assert.deepEqual([funded.status, funded.address], ['WAITING_FUNDS', customer]);
    assert.ok(funded.topup_amount > 10, `topup ${funded.topup_amount}`);
    assert.equal((await refund(r.id, otherKey)).detail, 'No Refund matches the given query.');
    await devnet.pay(funded.topup_address, String(funded.topup_amount), 'USDT');
    await waitRefund(r.id, 'SENT');
    assert.equal(await chain.getUsdtBalance(customer), 10_000_000n, 'the customer received exactly the amount');
    const after = (await httpRequest(page('status'))).json;
    assert.equal(after.status, 'SENT');
    assert.equal(after.sent.trn_hash, (await refund(r.id)).trn_hash);
    // The whole sale is refunded: nothing more.
    const more = await post(`/payment/${sale.id}/refund`, { currency: 'USDT', amount: '0.000001', address: customer });
    assert.match(more.json.detail, /^amount: At most 0 USDT can be refunded/);
    await waitFor('the three refund events delivered', async () => refundEvents(r.id).length >= 3, 30_000);
    assert.deepEqual(refundEvents(r.id).sort(), ['refund.claimed', 'refund.created', 'refund.sent'], 'refund.claimed tells the merchant to top it up');
    await assertReconciled(app.prisma, chain);
  });

  it('a MULTIPLE invoice is refundable up to what all its payments brought: 12 USDT of 10 + 5 sent exactly, the rest exactly, and a later payment raises the limit', async () => {
    // A static address taking both tokens, paid twice in USDT; each payment forwarded and booked as the worker does for MULTIPLE invoices.
    const created = await post('/payment/create', { type: 'MULTIPLE', currencies: ['TRX', 'USDT'] });
    assert.equal(created.status, 200, created.text);
    const inv = created.json as { id: number; address: string };
    const invoiceNow = async () => (await app.api(`/payment/get/${inv.id}`, key)).json as { status: string; transfer_amounts: { input: Record<string, number> } };
    const paid = async (amount: string, total: number) => {
      await devnet.pay(inv.address, amount, 'USDT');
      await waitFor(`invoice ${inv.id} to have received ${total} USDT`, async () => (await invoiceNow()).transfer_amounts.input.USDT === total, 60_000);
    };
    // One after the other, so the 5 USDT is forwarded to a wallet that already holds USDT (the cheaper send), far from being held as uneconomic.
    await paid('10', 10);
    await paid('5', 15);
    assert.equal((await invoiceNow()).status, 'ACTIVE', 'a static address stays open');
    assert.equal(await app.prisma.transaction.count({ where: { invoiceId: inv.id, type: 'TRANSFER', sendState: 'CONFIRMED' } }), 2, 'both payments forwarded');

    // 12 USDT: more than either payment, within their sum. Topped up as any refund; the customer gets exactly 12.
    const customer = randomAddress();
    const made = await post(`/payment/${inv.id}/refund`, { currency: 'USDT', amount: 12, address: customer });
    assert.equal(made.status, 200, made.text);
    const r = made.json;
    assert.deepEqual([r.invoice, r.status, r.currency, r.amount, r.address], [inv.id, 'WAITING_FUNDS', 'USDT', 12, customer]);
    assert.equal(tokenUnits(r.topup_amount), tokenUnits(r.amount) + tokenUnits(r.cost));
    await devnet.pay(r.topup_address, String(r.topup_amount), 'USDT');
    const sent = await waitRefund(r.id, 'SENT');
    assert.ok(sent.trn_hash);
    assert.equal(await chain.getUsdtBalance(customer), 12_000_000n, 'the customer received exactly the amount');
    const send = (await app.api(`/transaction/${sent.trn_hash}`, key)).json;
    assert.deepEqual([send.to_address, send.amount, send.currency], [customer, 12, 'USDT']);

    // 15 received, 12 refunded: 3 left. Above it, the spec's 400 naming the field; exactly it, estimated and accepted.
    const left = (amount: string, received: number, committed: number) =>
      new RegExp(`^At most ${amount} USDT can be refunded: invoice #${inv.id} received ${received} USDT, and ${committed} is refunded or being refunded\\.$`);
    const refusedAbove = async (amount: string, max: string, received: number, committed: number) => {
      const res = await post(`/payment/${inv.id}/refund`, { currency: 'USDT', amount, address: customer });
      assert.equal(res.status, 400, res.text);
      assert.deepEqual(Object.keys(res.json.errors), ['amount']);
      assert.match(res.json.errors.amount[0], left(max, received, committed));
      assert.equal(res.json.detail, `amount: ${res.json.errors.amount[0]}`);
    };
    await refusedAbove('3.000001', '3', 15, 12);
    const noTrx = await post(`/payment/${inv.id}/refund`, { currency: 'TRX', amount: 1, address: customer });
    assert.equal(noTrx.json.detail, `amount: Invoice #${inv.id} has received no TRX to refund.`, 'the limit is per token');
    await app.prisma.user.updateMany({ where: { memberships: { some: { merchantId: merchant.id } } }, data: { passwordHash: await passwordHash('refund dashboard pw') } });
    const browser = new DashboardSession(app.baseUrl);
    assert.equal(await browser.signIn(merchant.email, 'refund dashboard pw'), null);
    assert.deepEqual((await browser.api(`/invoices/${inv.id}/refunds`)).json.refundable, { TRX: 0, USDT: 3 });
    const estimate = await browser.api(`/invoices/${inv.id}/refunds/estimate`, 'POST', { currency: 'USDT', amount: 3 });
    assert.equal(estimate.status, 200, estimate.text);
    assert.deepEqual([estimate.json.currency, estimate.json.amount], ['USDT', 3]);
    const overEstimate = await browser.api(`/invoices/${inv.id}/refunds/estimate`, 'POST', { currency: 'USDT', amount: '3.000001' });
    assert.equal(overEstimate.status, 400, overEstimate.text);
    assert.match(overEstimate.json.errors.amount[0], left('3', 15, 12));
    const rest = await post(`/payment/${inv.id}/refund`, { currency: 'USDT', amount: 3 });
    assert.equal(rest.status, 200, rest.text);
    assert.deepEqual([rest.json.status, rest.json.amount], ['WAITING_ADDRESS', 3]);
    await refusedAbove('0.000001', '0', 15, 15);

    // A payment after the refunds: the limit follows what the invoice received, 20 less the 15 standing.
    await paid('5', 20);
    await refusedAbove('5.000001', '5', 20, 15);
    assert.deepEqual((await browser.api(`/invoices/${inv.id}/refunds`)).json.refundable, { TRX: 0, USDT: 5 });
    const later = await post(`/payment/${inv.id}/refund`, { currency: 'USDT', amount: 5 });
    assert.equal(later.status, 200, later.text);
    assert.deepEqual((await app.api(`/payment/${inv.id}/refunds`, key)).json.map((x: { status: string; amount: number }) => [x.status, x.amount]), [['SENT', 12], ['WAITING_ADDRESS', 3], ['WAITING_ADDRESS', 5]]);
    await assertReconciled(app.prisma, chain);
  });

  it('a canceled refund, unclaimed or unfunded, gives its amount back to refund; the customer cannot claim it then', async () => {
    const sale = await paidSale('TRX');
    const unclaimed = (await post(`/payment/${sale.id}/refund`, { currency: 'TRX', amount: 40 })).json;
    assert.match((await post(`/payment/${sale.id}/refund`, { currency: 'TRX', amount: 1 })).json.detail, /^amount: At most 0 TRX/);
    const canceled = await app.api(`/refund/${unclaimed.id}/cancel`, key, { method: 'DELETE' });
    assert.equal(canceled.status, 200, canceled.text);
    assert.equal(canceled.json.status, 'CANCELED');
    const k = new URL(unclaimed.claim_url).searchParams.get('k')!;
    const late = await httpRequest(`${app.baseUrl}/payment/refund/${unclaimed.id}/claim?k=${k}`, { method: 'POST', body: { address: randomAddress() } });
    assert.equal(late.json.detail, 'The merchant canceled this refund.');

    const unfunded = (await post(`/payment/${sale.id}/refund`, { currency: 'TRX', amount: 40, address: randomAddress() })).json;
    assert.equal(unfunded.status, 'WAITING_FUNDS');
    assert.equal((await app.api(`/refund/${unfunded.id}/cancel`, key, { method: 'DELETE' })).json.status, 'CANCELED');
    assert.equal((await app.api(`/payment/get/${unfunded.payout}`, key)).json.status, 'CANCELED', 'its payout is canceled with it');
    assert.equal((await app.api(`/refund/${unfunded.id}/cancel`, key, { method: 'DELETE' })).json.detail, 'Refund cannot be canceled: it is CANCELED.');
    // Canceled by the merchant: no refund.failed; the worker records the outcome as told.
    await waitFor('the canceled payout told', async () => (await app.prisma.refund.findUniqueOrThrow({ where: { id: unfunded.id } })).outcomeTold === 'CANCELED', 30_000);
    // The worker sends what was queued in its own time: waited for, then nothing else came.
    await waitFor('refund.created delivered', async () => refundEvents(unfunded.id).includes('refund.created'), 30_000);
    assert.deepEqual(refundEvents(unfunded.id), ['refund.created']);
    // Not opted in: no refund event at all.
    await app.prisma.merchant.update({ where: { id: merchant.id }, data: { webhookRefundEvents: false } });
    const whole = await post(`/payment/${sale.id}/refund`, { currency: 'TRX', amount: 40 });
    await app.prisma.merchant.update({ where: { id: merchant.id }, data: { webhookRefundEvents: true } });
    assert.equal(whole.status, 200, whole.text);
    assert.equal(await app.prisma.webhookDelivery.count({ where: { eventKey: { startsWith: `refund:${whole.json.id}:` } } }), 0);
    assert.deepEqual((await app.api(`/payment/${sale.id}/refunds`, key)).json.map((x: { status: string }) => x.status), ['CANCELED', 'CANCELED', 'WAITING_ADDRESS']);
  });
});
