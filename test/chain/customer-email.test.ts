import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { TronWeb } from 'tronweb';
import { createChain, type Chain } from '@/lib/chain';
import { deriveAccount } from '@/lib/chain/keys';
import { startApp, TEST_MNEMONIC, type TestApp } from '../helpers/app';
import { startDevnetProcess, waitFor, type DevnetProcess } from '../helpers/devnet';
import { httpRequest } from '../helpers/http';
import { assertReconciled } from '../helpers/reconcile';
import { startSmtpSink, type SmtpSink } from '../helpers/smtp';
import { startWorker, type WorkerProcess } from '../helpers/worker';

const randomAddress = () => (TronWeb.createRandom() as unknown as { address: string }).address;

/**
 * The customer's optional e-mail (issue 36): given on the payment page's full view where the
 * service sends e-mail, it brings the receipt when the real worker completes the invoice (or at
 * once when given after), and the claim link of a refund the merchant makes without an address;
 * the merchant is e-mailed when the customer claims it.
 * Real devnet payments, the real app and worker, an SMTP sink.
 */
describe("the customer's e-mail: a receipt and a refund's claim link (issue 36)", () => {
  let devnet: DevnetProcess;
  let app: TestApp;
  let worker: WorkerProcess;
  let chain: Chain;
  let smtp: SmtpSink;
  let key: string;
  let merchantEmail: string;

  type Invoice = { id: number; address: string; paymentURL: string; currencies_amounts: Record<string, number> };
  const linkKey = (inv: Invoice) => new URL(inv.paymentURL).searchParams.get('k')!;
  const status = async (inv: Invoice, k: string | null = linkKey(inv)) => (await httpRequest(`${app.baseUrl}/payment/${inv.id}/status${k ? `?k=${k}` : ''}`)).json as { receipt_email: { address: string | null } | null };
  const setEmail = (inv: Invoice, body: unknown, k = linkKey(inv)) =>
    httpRequest(`${app.baseUrl}/payment/${inv.id}/email?k=${k}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  async function invoice(orderId: string): Promise<Invoice> {
    const res = await app.api('/payment/create', key, { method: 'POST', body: { type: 'SINGLE', amount: 10, currencies: ['TRX'], order_id: orderId } });
    assert.equal(res.status, 200, res.text);
    return res.json as Invoice;
  }
  async function pay(inv: Invoice): Promise<void> {
    await devnet.pay(inv.address, String(inv.currencies_amounts.TRX), 'TRX');
    await waitFor(`invoice ${inv.id} COMPLETED`, async () => (await app.api(`/payment/get/${inv.id}`, key)).json.status === 'COMPLETED', 60_000);
  }
  const mailTo = (to: string, subject: string) =>
    waitFor(`the e-mail "${subject}" to ${to}`, async () => smtp.messages.find((m) => new RegExp(`^To: ${to}$`, 'm').test(m) && m.includes(`Subject: ${subject}`)), 60_000);

  before(async () => {
    smtp = await startSmtpSink();
    devnet = await startDevnetProcess({ blockMs: 100, solidifiedDepth: 3 });
    const mail = { SMTP_URL: smtp.url, MAIL_FROM: 'payments@pay.example.com' };
    app = await startApp({ TRON_FULL_NODE_URL: devnet.url, TRON_USDT_CONTRACT: devnet.usdtContract, PAYMENT_PAGE_BASE: 'https://pay.example.com', ...mail });
    chain = createChain({ fullNodeUrl: devnet.url, apiKey: null, usdtContract: devnet.usdtContract, txExpirationMs: 60_000 });
    const created = await app.createMerchant({ targetWallet: randomAddress() });
    key = created.key;
    merchantEmail = created.merchant.email;
    await app.prisma.merchant.update({ where: { id: created.merchant.id }, data: { storeName: 'Corner Shop', supportEmail: 'help@corner.example' } });
    await devnet.pay(deriveAccount(TEST_MNEMONIC, 0, 'gas').address, '10000', 'TRX');
    worker = startWorker(app.env, devnet, mail);
  });

  after(async () => {
    await worker?.stop();
    await app?.stop();
    await devnet?.stop();
    smtp?.close();
  });

  it('is offered on the full view only, refuses a bad address or link, and brings the receipt when the invoice completes', async () => {
    const inv = await invoice('MAIL-1');
    assert.deepEqual((await status(inv)).receipt_email, { address: null });
    assert.equal((await status(inv, null)).receipt_email, null, 'not offered without the link key');
    assert.equal((await setEmail(inv, { email: 'a@b.example' }, 'x'.repeat(22))).status, 404, 'a wrong key');
    const bad = await setEmail(inv, { email: 'not an address' });
    assert.equal(bad.status, 400);
    assert.ok((bad.json as { errors?: { email?: string[] } }).errors?.email, bad.text);
    const ok = await setEmail(inv, { email: ' Buyer@Example.com ' });
    assert.equal(ok.status, 200, ok.text);
    assert.deepEqual(ok.json, { email: 'buyer@example.com' });
    assert.deepEqual((await status(inv)).receipt_email, { address: 'buyer@example.com' });

    await pay(inv);
    const receipt = await mailTo('buyer@example.com', 'Receipt: your payment to Corner Shop');
    assert.match(receipt, new RegExp(`Invoice:  #${inv.id} \\(order MAIL-1\\)`));
    assert.match(receipt, /Your payment to Corner Shop is paid\./);
    assert.match(receipt, new RegExp(`Received: ${inv.currencies_amounts.TRX} TRX`));
    assert.ok(receipt.includes(inv.paymentURL), 'the payment page, with its key');
    assert.match(receipt, /help@corner\.example/);

    // A refund without an address: its claim link goes to the same e-mail.
    const refund = await app.api(`/payment/${inv.id}/refund`, key, { method: 'POST', body: { currency: 'TRX', amount: 1 } });
    assert.equal(refund.status, 200, refund.text);
    const claimUrl = (refund.json as { claim_url: string }).claim_url;
    const claim = await mailTo('buyer@example.com', 'Corner Shop is refunding 1 TRX to you');
    assert.ok(claim.includes(claimUrl), 'the claim link');

    // The customer claims it: the merchant is told by e-mail, queued with the claim, what to top up where.
    const refundId = (refund.json as { id: number }).id;
    const customerAddress = randomAddress();
    const claimed = await httpRequest(`${app.baseUrl}/payment/refund/${refundId}/claim?k=${new URL(claimUrl).searchParams.get('k')}`, { method: 'POST', body: { address: customerAddress } });
    assert.equal(claimed.status, 200, claimed.text);
    const waiting = (await app.api(`/refund/${refundId}`, key)).json as { status: string; topup_amount: number; topup_address: string };
    assert.equal(waiting.status, 'WAITING_FUNDS');
    const told = await mailTo(merchantEmail, `Refund #${refundId} claimed: top up ${waiting.topup_amount} TRX to send it`);
    assert.match(told, new RegExp(`refund #${refundId} of invoice #${inv.id} \\(order MAIL-1\\): 1 TRX goes to ${customerAddress}\\.`));
    assert.ok(told.includes(waiting.topup_address), 'where to top it up');
    assert.ok(told.includes(`/dashboard/invoices/${inv.id}`), "the invoice's page");
    assert.equal(await app.prisma.mailOutbox.count({ where: { eventKey: `refund:${refundId}:claimed` } }), 1, 'one e-mail for the claim');
    // One receipt, however the mails are counted.
    assert.equal(smtp.messages.filter((m) => m.includes('Subject: Receipt: your payment to Corner Shop') && m.includes(`#${inv.id} `)).length, 1);
  });

  it('sends the receipt at once when the e-mail is given after the invoice was paid, and nothing for an unpaid end', async () => {
    const inv = await invoice('MAIL-2');
    await pay(inv);
    assert.equal((await setEmail(inv, { email: 'late@example.com' })).status, 200);
    const receipt = await mailTo('late@example.com', 'Receipt: your payment to Corner Shop');
    assert.match(receipt, new RegExp(`#${inv.id} \\(order MAIL-2\\)`));

    const canceled = await invoice('MAIL-3');
    assert.equal((await app.api(`/payment/${canceled.id}/cancel`, key, { method: 'DELETE' })).status, 200);
    const refused = await setEmail(canceled, { email: 'nobody@example.com' });
    assert.equal(refused.status, 400);
    assert.match(String((refused.json as { detail: string }).detail), /not paid/);
    await assertReconciled(app.prisma, chain);
  });

  it('is not offered where the service sends no e-mail', async () => {
    const quiet = await startApp({ TRON_FULL_NODE_URL: devnet.url, TRON_USDT_CONTRACT: devnet.usdtContract });
    try {
      const { key: quietKey } = await quiet.createMerchant({ targetWallet: randomAddress() });
      const res = await quiet.api('/payment/create', quietKey, { method: 'POST', body: { type: 'SINGLE', amount: 10, currencies: ['TRX'] } });
      const inv = res.json as Invoice;
      const k = linkKey(inv);
      assert.equal(((await httpRequest(`${quiet.baseUrl}/payment/${inv.id}/status?k=${k}`)).json as { receipt_email: unknown }).receipt_email, null);
      const refused = await httpRequest(`${quiet.baseUrl}/payment/${inv.id}/email?k=${k}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: 'a@example.com' }) });
      assert.equal(refused.status, 400);
      assert.match(String((refused.json as { detail: string }).detail), /sends no e-mail/);
    } finally {
      await quiet.stop();
    }
  });
});
