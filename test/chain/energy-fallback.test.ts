import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { after, before, describe, test } from 'node:test';
import { DEVNET_RENTAL_API_KEY, DEVNET_RENTAL_API_SECRET } from '@/devnet/rentalAccount';
import { rentalClient } from '@/lib/energy/rental';
import type { Transaction } from '@/lib/generated/prisma/client';
import { waitFor } from '../helpers/devnet';
import { httpRequest } from '../helpers/http';
import { assertReconciled } from '../helpers/reconcile';
import { SettlementStack } from '../helpers/settlementStack';
import { scriptArgs } from '../helpers/scripts';

// The energy engine's fallbacks (issue 23, docs/energy.md) on the devnet with the real app and worker:
// a pool that lends one cold USDT forward a day, rented energy from the devnet's provider behind it,
// and burning capped at 5 TRX (a USDT forward burns 6.4-13.4). The pool exhausted, a forward rents;
// a small payment the pool's cost made worth forwarding is never forwarded with energy that costs
// more than it is worth (it waits for the pool); a rental refused falls back to burning, which
// above the cap waits; an operator's stake lets every waiting send go with the pool.

const run = promisify(execFile);
const gauge = (body: string, name: string) => Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(body)?.[1]);

describe('a small pool, rented energy behind it, burning capped at 5 TRX', () => {
  const s = new SettlementStack();
  const env: Record<string, string> = {
    // 25,000 TRX lend about 236,000 energy a day: one cold USDT forward (143,314 with the margin), not two.
    ENERGY_POOL_AUTOSTAKE: '25000:5000',
    ENERGY_MAX_BURN_TRX: '5',
    ENERGY_RENTAL_WAIT_SECONDS: '10',
    ENERGY_RENTAL_API_KEY: DEVNET_RENTAL_API_KEY,
    ENERGY_RENTAL_API_SECRET: DEVNET_RENTAL_API_SECRET,
  };
  let small: { key: string; invoice: { id: number; address: string; currencies_amounts: Record<string, number> } };
  let refused: Transaction;
  before(async () => {
    await s.start(env, async () => {
      env.ENERGY_RENTAL_URL = s.devnet.url;
      await s.pay(s.gasWallet.address, '80000', 'TRX');
    });
    await s.poolStaked();
  });
  after(() => s.stop());

  const paymentOf = (invoice: { id: number; currencies_amounts: Record<string, number> }) => s.paymentOf(invoice.id, BigInt(Math.round(invoice.currencies_amounts.USDT! * 1e6)), 180_000);
  const forwardOf = (paymentId: number) => s.app.prisma.transaction.findFirstOrThrow({ where: { sourceId: paymentId, sendPurpose: 'FORWARD', sendState: 'CONFIRMED' } });
  const waiting = (paymentId: number, pattern: RegExp) =>
    waitFor(`payment ${paymentId} waiting (${pattern})`, async () => {
      const p = await s.app.prisma.transaction.findUniqueOrThrow({ where: { id: paymentId } });
      return pattern.test(p.waitingReason ?? '') ? p : null;
    }, 180_000);

  test('the pool exhausted, a forward rents its energy; a small payment judged on the pool\'s cost waits for the pool rather than rent more than it is worth', async () => {
    await waitFor('the pool published as the cheapest source', () => s.app.prisma.energyStatus.findFirst({ where: { usdtForwardSource: 'POOL' } }), 120_000);
    // Accepted while the pool can pay its forward (its activation only): 1.5 USD.
    const m = await s.newMerchant();
    small = { key: m.key, invoice: await s.invoice(m.key, { type: 'SINGLE', amount: 1.5, currencies: ['USDT'] }) };

    // The pool pays one cold forward, and is then short of a second.
    const first = await s.newMerchant();
    const i1 = await s.invoice(first.key, { type: 'SINGLE', amount: 10, currencies: ['USDT'] });
    await s.pay(i1.address, String(i1.currencies_amounts.USDT), 'USDT');
    await s.waitStatus(first.key, i1.id, 'COMPLETED', 180_000);
    assert.equal((await forwardOf((await paymentOf(i1)).id)).energySource, 'POOL');

    const second = await s.newMerchant();
    const i2 = await s.invoice(second.key, { type: 'SINGLE', amount: 10, currencies: ['USDT'] });
    await s.pay(i2.address, String(i2.currencies_amounts.USDT), 'USDT');
    await s.waitStatus(second.key, i2.id, 'COMPLETED', 180_000);
    const p2 = await paymentOf(i2);
    const f2 = await forwardOf(p2.id);
    assert.equal(f2.energySource, 'RENTAL', 'the pool could not lend it: rented');
    assert.equal(f2.feeSun, 0n);
    assert.deepEqual((await s.app.prisma.energyRental.findMany({ where: { paymentId: p2.id } })).map((r) => r.state), ['FILLED']);

    // The small payment: renting a cold send's energy (about 8.6 TRX) costs more than its 1.485 USDT.
    await s.pay(small.invoice.address, String(small.invoice.currencies_amounts.USDT), 'USDT');
    const p = await paymentOf(small.invoice);
    const w = await waiting(p.id, /^waiting for energy: .*more than the payment is worth/);
    assert.match(w.waitingReason!, /renting its energy instead would cost [\d.]+ TRX/);
    assert.equal(await s.app.prisma.energyRental.count({ where: { paymentId: p.id } }), 0, 'nothing rented for it');
    assert.equal(await s.app.prisma.transaction.count({ where: { sourceId: p.id, sendPurpose: 'FORWARD' } }), 0, 'nothing forwarded');
  });

  test('a rental refused with an errno: the forward would burn above ENERGY_MAX_BURN_TRX instead, so it waits, visibly, and /metrics counts it', async () => {
    await s.devnet.rental.set({ refuse_orders: 'Insufficient balance for this order' });
    const { key } = await s.newMerchant();
    const invoice = await s.invoice(key, { type: 'SINGLE', amount: 10, currencies: ['USDT'] });
    await s.pay(invoice.address, String(invoice.currencies_amounts.USDT), 'USDT');
    refused = await paymentOf(invoice);
    const w = await waiting(refused.id, /above ENERGY_MAX_BURN_TRX \(5\)/);
    const [rental, ...more] = await s.app.prisma.energyRental.findMany({ where: { paymentId: refused.id } });
    assert.equal(more.length, 0);
    assert.equal(rental!.state, 'FAILED');
    assert.match(rental!.error ?? '', /refused the order .*errno 2: Insufficient balance for this order/);
    assert.match(w.waitingReason!, /refused the order/);
    assert.equal(await s.app.prisma.transaction.count({ where: { sourceId: refused.id, sendPurpose: 'FORWARD' } }), 0, 'nothing burned, nothing forwarded');
    assert.match(s.worker.output(), new RegExp(`ALERT payment ${refused.id}: energy rental p${refused.id}-forward-1 failed: the energy rental provider refused the order`));
    const metrics = (await httpRequest(`${s.app.baseUrl}/metrics`)).text;
    assert.equal(gauge(metrics, 'invoicing_sends_waiting_for_energy'), 2, 'the small payment and this one');
    await s.devnet.rental.reset();
  });

  test('an operator stakes more: both waiting forwards go out with the pool, and the books balance', async () => {
    const cliEnv = { ...process.env, ...s.app.env, TRON_FULL_NODE_URL: s.devnet.url, TRON_USDT_CONTRACT: s.devnet.usdtContract };
    const staked = await run(process.execPath, scriptArgs('scripts/energy.ts', 'stake', '40000', 'energy'), { env: cliEnv });
    assert.match(staked.stdout, /is final/);
    await s.waitStatus(small.key, small.invoice.id, 'COMPLETED', 180_000);
    const p = await paymentOf(small.invoice);
    assert.equal((await forwardOf(p.id)).energySource, 'POOL');
    await s.paymentState(refused.id, ['SETTLED'], 180_000);
    assert.equal((await forwardOf(refused.id)).energySource, 'POOL', 'the attempt whose rental failed went out with the pool');
    for (const id of [p.id, refused.id]) assert.equal((await s.app.prisma.transaction.findUniqueOrThrow({ where: { id } })).waitingReason, null);
    const provider = rentalClient({ url: s.devnet.url, apiKey: DEVNET_RENTAL_API_KEY, apiSecret: DEVNET_RENTAL_API_SECRET, period: '1H', timeoutMs: 10_000 });
    await assertReconciled(s.app.prisma, s.chain, 180_000, undefined, provider);
    const metrics = (await httpRequest(`${s.app.baseUrl}/metrics`)).text;
    assert.equal(gauge(metrics, 'invoicing_sends_waiting_for_energy'), 0);
  });
});
