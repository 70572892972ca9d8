import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, test } from 'node:test';
import { TronWeb } from 'tronweb';
import { DEVNET_RENTAL_API_KEY, DEVNET_RENTAL_API_SECRET } from '@/devnet/rentalAccount';
import { RentalRefused, RentalUnavailable, rentalClient, type RentalClient } from '@/lib/energy/rental';
import type { Transaction } from '@/lib/generated/prisma/client';
import { createChain, type Chain } from '@/lib/chain';
import { startDevnetProcess, waitFor, type DevnetProcess } from './helpers/devnet';
import { httpRequest } from './helpers/http';
import { assertReconciled } from './helpers/reconcile';
import { SettlementStack } from './helpers/settlementStack';
import { startWorker } from './helpers/worker';

// Rented energy (issue 23, docs/energy.md "Rented energy") on the devnet, through its emulation of the
// itrx.io API (devnet/rental.ts), with the real app and worker and the pool off: a USDT forward rents
// its energy (a real delegation from the provider's account), burns none, and pays the provider's
// price, booked and charged; the provider down, dearer than the cap, underfilling or slow; a worker
// killed between the order and the send. Reconciled at the end, the provider's own account included.

const newAddress = () => (TronWeb.createRandom() as unknown as { address: string }).address;

describe("the devnet's energy rental provider (itrx.io's API)", () => {
  let devnet: DevnetProcess;
  let chain: Chain;
  let provider: RentalClient;
  let providerAddress: string;
  before(async () => {
    devnet = await startDevnetProcess({ blockMs: 100, solidifiedDepth: 3 });
    chain = createChain({ fullNodeUrl: devnet.url, apiKey: null, usdtContract: devnet.usdtContract, txExpirationMs: 60_000 });
    provider = rentalClient({ url: devnet.url, apiKey: DEVNET_RENTAL_API_KEY, apiSecret: DEVNET_RENTAL_API_SECRET, period: '1H', timeoutMs: 10_000 });
    providerAddress = (await devnet.rental.get()).provider;
  });
  after(() => devnet.stop());

  test('the devnet provider checks the signature, refuses an address that is not an account, dedupes out_trade_no and answers 503 when down', async () => {
    const address = newAddress();
    await assert.rejects(provider.order(address, 70_000n, 'devnet-check-1'), (err: Error) => err instanceof RentalRefused && /not activated/.test(err.message));
    await devnet.pay(address, '1', 'TRX');
    await waitFor('the address activated', async () => ((await chain.isActivated(address)) ? true : null), 30_000);
    const forged = rentalClient({ url: devnet.url, apiKey: DEVNET_RENTAL_API_KEY, apiSecret: 'not-the-secret', period: '1H', timeoutMs: 10_000 });
    await assert.rejects(forged.order(address, 70_000n, 'devnet-check-2'), (err: Error) => err instanceof RentalRefused && /SIGNATURE/.test(err.message));
    const before = await devnet.rental.get();
    const first = await provider.order(address, 70_000n, 'devnet-check-3');
    const again = await provider.order(address, 70_000n, 'devnet-check-3');
    assert.equal(again.serial, first.serial, 'the same out_trade_no is the same order');
    assert.equal(first.priceSun, 70_000n * 60n);
    const afterOrders = await devnet.rental.get();
    assert.equal(afterOrders.orders, before.orders + 1);
    assert.equal(BigInt(afterOrders.spent_sun) - BigInt(before.spent_sun), first.priceSun, 'charged once');
    // A real delegation from the provider's account, on chain.
    await waitFor('the rented energy delegated', async () => ((await chain.getDelegatedSun(providerAddress, address)).ENERGY > 0n ? true : null), 30_000);
    // The provider reports the order done once its delegation is in a block.
    const status = await waitFor('the order reported filled', async () => {
      const st = await provider.status(first.serial);
      return st.status === 40 ? st : null;
    }, 30_000);
    assert.equal(status.filledEnergy, 70_000n);
    await devnet.rental.set({ mode: 'down' });
    await assert.rejects(provider.quote(70_000n), RentalUnavailable);
  });

});

describe('USDT forwards paid with rented energy', () => {
  const s = new SettlementStack();
  const env: Record<string, string> = { ENERGY_POOL: 'off', ENERGY_RENTAL_WAIT_SECONDS: '10', ENERGY_RENTAL_API_KEY: DEVNET_RENTAL_API_KEY, ENERGY_RENTAL_API_SECRET: DEVNET_RENTAL_API_SECRET };
  let provider: RentalClient;
  let providerAddress: string;

  before(async () => {
    // The worker's environment is read once the devnet is up (its URL is the provider's).
    await s.start(env, async () => {
      env.ENERGY_RENTAL_URL = s.devnet.url;
    });
    provider = rentalClient({ url: s.devnet.url, apiKey: DEVNET_RENTAL_API_KEY, apiSecret: DEVNET_RENTAL_API_SECRET, period: '1H', timeoutMs: 10_000 });
    providerAddress = (await s.devnet.rental.get()).provider;
  });
  after(() => s.stop());
  beforeEach(() => s.devnet.rental.reset());

  /** Pays a fresh 10 USDT invoice; its payment. */
  async function paidInvoice(): Promise<{ key: string; invoice: { id: number; address: string }; payment: Transaction }> {
    const { key } = await s.newMerchant();
    const invoice = await s.invoice(key, { type: 'SINGLE', amount: 10, currencies: ['USDT'] });
    await s.pay(invoice.address, String(invoice.currencies_amounts.USDT), 'USDT');
    const payment = await s.paymentOf(invoice.id, BigInt(Math.round(invoice.currencies_amounts.USDT! * 1e6)), 60_000);
    return { key, invoice, payment };
  }

  const forwardOf = (paymentId: number) => s.app.prisma.transaction.findFirstOrThrow({ where: { sourceId: paymentId, sendPurpose: 'FORWARD', sendState: 'CONFIRMED' } });
  const rentalsOf = (paymentId: number) => s.app.prisma.energyRental.findMany({ where: { paymentId }, orderBy: { id: 'asc' } });

  test('a forward from a fresh address rents its energy: a real delegation, no energy burned, the price recorded, booked and charged to the merchant', async () => {
    const { key, invoice, payment } = await paidInvoice();
    await s.waitStatus(key, invoice.id, 'COMPLETED', 120_000);
    const forward = await forwardOf(payment.id);
    assert.equal(forward.energySource, 'RENTAL');
    assert.equal(forward.feeSun, 0n, 'the forward burned nothing: rented energy, bandwidth from the free allowance');
    assert.ok((forward.energyUsed ?? 0n) > 60_000n, `the receipt's energy is recorded (${forward.energyUsed})`);
    const [rental, ...more] = await rentalsOf(payment.id);
    assert.equal(more.length, 0, 'one order');
    assert.equal(rental!.state, 'FILLED');
    assert.ok(rental!.serial);
    assert.ok(rental!.priceSun! > 0n && rental!.priceSun! < 13_028_500n, `cheaper than burning (${rental!.priceSun})`);
    assert.equal(rental!.priceSun, rental!.energyAmount * 60n, 'the provider price: energy x 60 sun');
    // The delegation came from the provider's account (it returns at the period's end by itself).
    assert.ok((await s.chain.getDelegatedSun(providerAddress, invoice.address)).ENERGY > 0n);
    // The gas wallet only activated the address.
    const gas = await s.app.prisma.transaction.findMany({ where: { sourceId: payment.id, sendPurpose: 'FORWARD_GAS' } });
    assert.deepEqual(gas.map((g) => [g.amountUnits, g.energySource]), [[1n, 'RENTAL']]);
    const booked = await s.app.prisma.ledgerEntry.findFirstOrThrow({ where: { kind: 'ENERGY_RENTAL', paymentId: payment.id } });
    assert.equal(booked.units, rental!.priceSun);
    const charged = await s.app.prisma.merchantBalanceEntry.findFirstOrThrow({ where: { kind: 'ENERGY_RENTAL', transactionId: forward.id } });
    assert.equal(charged.deltaSun, -rental!.priceSun!);
  });

  test('the provider down: the forward burns within the cap, and why is recorded', async () => {
    await s.devnet.rental.set({ mode: 'down' });
    const { key, invoice, payment } = await paidInvoice();
    await s.waitStatus(key, invoice.id, 'COMPLETED', 120_000);
    assert.equal((await forwardOf(payment.id)).energySource, 'BURN');
    const rentals = await rentalsOf(payment.id);
    assert.deepEqual(rentals.map((r) => [r.state, r.priceSun]), [['FAILED', null]]);
    assert.match(rentals[0]!.error ?? '', /unavailable.*503/);
  });

  test('a price above ENERGY_RENTAL_MAX_TRX: not rented, the forward burns within the cap', async () => {
    // 143,314 energy at 200 sun is 28.7 TRX, above the 15 TRX cap.
    await s.devnet.rental.set({ price_sun_per_energy: 200 });
    const { orders } = await s.devnet.rental.get();
    const { key, invoice, payment } = await paidInvoice();
    await s.waitStatus(key, invoice.id, 'COMPLETED', 120_000);
    assert.equal((await forwardOf(payment.id)).energySource, 'BURN');
    const rentals = await rentalsOf(payment.id);
    assert.equal(rentals.length, 1);
    assert.match(rentals[0]!.error ?? '', /above ENERGY_RENTAL_MAX_TRX/);
    assert.equal((await s.devnet.rental.get()).orders, orders, 'nothing ordered');
  });

  test('a partial fill: the send waits for the rest, visibly, then burns within the cap', async () => {
    await s.devnet.rental.set({ mode: 'partial', partial_percent: 50 });
    const { key, invoice, payment } = await paidInvoice();
    const waiting = await waitFor('the payment waiting for its rented energy', async () => {
      const p = await s.app.prisma.transaction.findUniqueOrThrow({ where: { id: payment.id } });
      return /waiting for energy: rental order \w+ filled \d+ of \d+ \(partial commission\)/.test(p.waitingReason ?? '') ? p : null;
    }, 60_000);
    assert.match(waiting.waitingReason!, /the address has \d+ of the \d+ energy the send needs/);
    await s.waitStatus(key, invoice.id, 'COMPLETED', 120_000);
    const forward = await forwardOf(payment.id);
    assert.equal(forward.energySource, 'BURN');
    assert.equal(forward.sendAttempt, 1, 'the same attempt switched to burning: nothing of it had been broadcast');
    const [rental] = await rentalsOf(payment.id);
    assert.equal(rental!.state, 'ABANDONED');
    assert.ok(rental!.priceSun! > 0n, 'the order was paid');
    // Paid for, so charged with the forward like its burned TRX.
    const charged = await s.app.prisma.merchantBalanceEntry.findFirstOrThrow({ where: { kind: 'ENERGY_RENTAL', transactionId: forward.id } });
    assert.equal(charged.deltaSun, -rental!.priceSun!);
    assert.equal((await s.app.prisma.transaction.findUniqueOrThrow({ where: { id: payment.id } })).waitingReason, null);
  });

  test('a slow fill: the send waits until the delegation lands, then goes out with the rented energy', async () => {
    await s.devnet.rental.set({ mode: 'slow', delay_blocks: 30 });
    const { key, invoice, payment } = await paidInvoice();
    await waitFor('the payment waiting for its rented energy', async () => {
      const p = await s.app.prisma.transaction.findUniqueOrThrow({ where: { id: payment.id } });
      return /waiting for energy: rental order \w+ filled 0 of/.test(p.waitingReason ?? '') ? p : null;
    }, 60_000);
    assert.equal(await s.app.prisma.transaction.count({ where: { sourceId: payment.id, sendPurpose: 'FORWARD' } }), 0, 'nothing sent before the energy is on chain');
    await s.waitStatus(key, invoice.id, 'COMPLETED', 120_000);
    const forward = await forwardOf(payment.id);
    assert.equal(forward.energySource, 'RENTAL');
    assert.equal(forward.feeSun, 0n);
    assert.equal((await rentalsOf(payment.id))[0]!.state, 'FILLED');
  });

  test('kill -9 between the order and the send: the restarted worker orders nothing again and sends once', async () => {
    // Slow enough that the worker dies with the order placed and the energy not yet there.
    await s.devnet.rental.set({ mode: 'slow', delay_blocks: 40 });
    const { orders } = await s.devnet.rental.get();
    const { key, invoice, payment } = await paidInvoice();
    await waitFor('the order placed', () => s.app.prisma.energyRental.findFirst({ where: { paymentId: payment.id, state: 'ORDERED' } }), 60_000);
    await s.worker.kill();
    s.worker = startWorker(s.app.env, s.devnet, { AML_FLAGGED_ADDRESSES: s.flagged.address, ...env });
    await s.waitStatus(key, invoice.id, 'COMPLETED', 120_000);
    assert.equal((await s.devnet.rental.get()).orders, orders + 1, 'one order at the provider');
    assert.equal((await rentalsOf(payment.id)).length, 1);
    const forwards = await s.app.prisma.transaction.findMany({ where: { sourceId: payment.id, sendPurpose: 'FORWARD' } });
    assert.deepEqual(forwards.map((f) => [f.sendState, f.energySource]), [['CONFIRMED', 'RENTAL']]);
  });

  test('a refund rents its energy too, and deducts its price from what it returns', async () => {
    const { key } = await s.newMerchant({ aml: true });
    const invoice = await s.invoice(key, { type: 'SINGLE', amount: 20, currencies: ['USDT'] });
    await s.pay(s.flagged.address, '20', 'USDT');
    await waitFor('the flagged sender holds USDT', async () => ((await s.chain.getUsdtBalance(s.flagged.address)) >= 20_000_000n ? true : null), 60_000);
    const sent = await s.chain.buildSignedUsdtTransfer(s.flagged.privateKey, invoice.address, 20_000_000n, 100_000_000n);
    await s.chain.broadcast(sent.signedTx);
    const payment = await s.paymentOf(invoice.id, 20_000_000n, 60_000);
    const refunded = await s.paymentState(payment.id, ['REFUNDED'], 120_000);
    const refund = await s.app.prisma.transaction.findFirstOrThrow({ where: { sourceId: payment.id, sendPurpose: 'REFUND', sendState: 'CONFIRMED' } });
    assert.equal(refund.energySource, 'RENTAL');
    assert.equal(refund.feeSun, 0n);
    assert.equal(refund.toAddress, s.flagged.address);
    const [rental] = await rentalsOf(payment.id);
    assert.equal(rental!.purpose, 'REFUND');
    assert.ok(rental!.priceSun! > 0n);
    // What the refund cost (with GAS_MARGIN_PERCENT, as a burn is) includes the rental's price, and was deducted.
    assert.ok(refunded.costSun! >= rental!.priceSun!, `cost ${refunded.costSun} covers the rental ${rental!.priceSun}`);
    assert.ok(refund.amountUnits < payment.amountUnits);
  });

  test('reconciled: the ledger, the merchants and the provider account agree on the rentals; /metrics shows the spend', async () => {
    await assertReconciled(s.app.prisma, s.chain, 60_000, undefined, provider);
    const spent = BigInt((await s.devnet.rental.get()).spent_sun);
    assert.ok(spent > 0n);
    const body = (await httpRequest(`${s.app.baseUrl}/metrics`)).text;
    const gauge = (name: string) => Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(body)?.[1]);
    assert.equal(gauge('invoicing_energy_rental_spend_trx_total'), Number(spent) / 1e6, 'every order the provider charged, as recorded here');
    assert.equal(gauge('invoicing_energy_rental_spend_trx_today'), Number(spent) / 1e6);
  });
});
