import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { randomBytes, randomUUID } from 'node:crypto';
import { TronWeb } from 'tronweb';
import { deriveAccount } from '@/lib/chain/keys';
import { requestHash } from '@/lib/idempotency/store';
import { startApp, TEST_MNEMONIC, type TestApp } from '../helpers/app';
import { startDevnetProcess, type DevnetProcess } from '../helpers/devnet';

// Issue 26: Idempotency-Key on invoice and payout creation, with Stripe's semantics: the first
// answer for a repeated key, a different request refused, concurrent duplicates make one creation.

const randomAddress = () => (TronWeb.createRandom() as unknown as { address: string }).address;

describe('Idempotency-Key on creation', () => {
  let devnet: DevnetProcess;
  let app: TestApp;
  let key: string;
  let merchantId: number;

  before(async () => {
    // Payout creation quotes on the chain: the devnet, with a funded gas wallet to simulate from.
    devnet = await startDevnetProcess({ blockMs: 200, solidifiedDepth: 2 });
    app = await startApp({ TRON_FULL_NODE_URL: devnet.url, TRON_USDT_CONTRACT: devnet.usdtContract });
    await devnet.pay(deriveAccount(TEST_MNEMONIC, 0, 'gas').address, '1000', 'TRX');
    ({ key, merchant: { id: merchantId } } = await app.createMerchant());
  });
  after(async () => {
    await app?.stop();
    await devnet?.stop();
  });

  const create = (body: unknown, idempotencyKey?: string, apiKey = key) =>
    app.api('/payment/create', apiKey, { method: 'POST', body, headers: idempotencyKey === undefined ? {} : { 'idempotency-key': idempotencyKey } });
  const invoices = (where: Record<string, unknown> = {}) => app.prisma.invoice.count({ where: { merchantId, ...where } });

  it('a repeated key gets the first answer again, and no second invoice', async () => {
    const k = randomUUID();
    const body = { type: 'SINGLE', amount: 10, currencies: ['TRX', 'USDT'], order_id: 'IDEM-1' };
    const first = await create(body, k);
    assert.equal(first.status, 200, first.text);
    assert.equal(first.headers['idempotent-replayed'], undefined, 'the first answer is no replay');
    const again = await create(body, k);
    assert.equal(again.status, 200);
    assert.equal(again.text, first.text, 'the same body, byte for byte');
    assert.equal(again.headers['idempotent-replayed'], 'true');
    // The same JSON with its keys in another order is the same request.
    const reordered = await create({ order_id: 'IDEM-1', currencies: ['TRX', 'USDT'], amount: 10, type: 'SINGLE' }, k);
    assert.equal(reordered.json.id, first.json.id);
    assert.equal(await invoices({ orderId: 'IDEM-1' }), 1);
  });

  it('without the header nothing changes: two requests, two invoices', async () => {
    const body = { type: 'SINGLE', amount: 5, currencies: ['TRX'], order_id: 'NO-KEY' };
    const a = await create(body);
    const b = await create(body);
    assert.equal(a.status, 200);
    assert.equal(b.status, 200);
    assert.notEqual(a.json.id, b.json.id);
    assert.equal(await invoices({ orderId: 'NO-KEY' }), 2);
  });

  it('refuses the same key with a different request, and keeps keys per merchant', async () => {
    const k = randomUUID();
    const first = await create({ type: 'SINGLE', amount: 10, currencies: ['TRX'], order_id: 'IDEM-2' }, k);
    assert.equal(first.status, 200, first.text);
    const other = await create({ type: 'SINGLE', amount: 11, currencies: ['TRX'], order_id: 'IDEM-2' }, k);
    assert.equal(other.status, 422, other.text);
    assert.match(other.json.detail, /Idempotency-Key was already used with a different request/);
    // The same key on the payout path is another request too.
    const payout = await app.api('/payment/multiple_transfer/create', key, { method: 'POST', body: { currency: 'TRX', target_wallets: [{ address: randomAddress(), amount: 2 }] }, headers: { 'idempotency-key': k } });
    assert.equal(payout.status, 422, payout.text);
    assert.equal(await invoices({ orderId: 'IDEM-2' }), 1);
    assert.equal(await invoices({ type: 'MULTIPLE_TRANSFER' }), 0);
    // Another merchant's key of the same name is its own.
    const { key: otherKey, merchant } = await app.createMerchant();
    const theirs = await create({ type: 'SINGLE', amount: 11, currencies: ['TRX'], order_id: 'IDEM-2' }, k, otherKey);
    assert.equal(theirs.status, 200, theirs.text);
    assert.equal(await app.prisma.invoice.count({ where: { merchantId: merchant.id } }), 1);
  });

  it('a refused request creates nothing and leaves the key free for the corrected one', async () => {
    const k = randomUUID();
    const bad = await create({ type: 'SINGLE', amount: -1, currencies: ['TRX'], order_id: 'IDEM-3' }, k);
    assert.equal(bad.status, 400);
    const good = await create({ type: 'SINGLE', amount: 1, currencies: ['TRX'], order_id: 'IDEM-3' }, k);
    assert.equal(good.status, 200, good.text);
    assert.equal((await create({ type: 'SINGLE', amount: 1, currencies: ['TRX'], order_id: 'IDEM-3' }, k)).json.id, good.json.id);
    assert.equal(await invoices({ orderId: 'IDEM-3' }), 1);
  });

  it('an unexpected failure is not kept: the retry with the same key runs and creates once (issue 34)', async () => {
    // A real failure inside the creation's transaction, of no kind the API expects: the database refuses the row.
    await app.prisma.$executeRawUnsafe(`CREATE FUNCTION refuse_idem_4() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN IF NEW.order_id = 'IDEM-4' THEN RAISE EXCEPTION 'refused for the test'; END IF; RETURN NEW; END $$`);
    await app.prisma.$executeRawUnsafe('CREATE TRIGGER refuse_idem_4 BEFORE INSERT ON invoices FOR EACH ROW EXECUTE FUNCTION refuse_idem_4()');
    const k = randomUUID();
    const body = { type: 'SINGLE', amount: 2, currencies: ['TRX'], order_id: 'IDEM-4' };
    try {
      const failed = await create(body, k);
      assert.equal(failed.status, 500, failed.text);
      assert.deepEqual(failed.json, { detail: 'Internal server error' });
    } finally {
      await app.prisma.$executeRawUnsafe('DROP TRIGGER refuse_idem_4 ON invoices');
      await app.prisma.$executeRawUnsafe('DROP FUNCTION refuse_idem_4()');
    }
    assert.equal(await invoices({ orderId: 'IDEM-4' }), 0, 'the failed creation rolled back');
    const retried = await create(body, k);
    assert.equal(retried.status, 200, retried.text);
    assert.equal(retried.headers['idempotent-replayed'], undefined, 'the retry ran; the 500 was not replayed');
    assert.equal((await create(body, k)).json.id, retried.json.id, 'and its answer is the one kept');
    assert.equal(await invoices({ orderId: 'IDEM-4' }), 1);
  });

  it('five concurrent requests with one key make one invoice and all get its answer', async () => {
    const k = randomUUID();
    const body = { type: 'SINGLE', amount: 7, currencies: ['TRX'], order_id: 'IDEM-RACE' };
    const answers = await Promise.all(Array.from({ length: 5 }, () => create(body, k)));
    for (const a of answers) assert.equal(a.status, 200, a.text);
    assert.deepEqual(new Set(answers.map((a) => a.json.id)).size, 1, 'one invoice id in every answer');
    assert.equal(answers.filter((a) => a.headers['idempotent-replayed'] === 'true').length, 4);
    assert.equal(await invoices({ orderId: 'IDEM-RACE' }), 1);
  });

  it('a key is kept 24 hours; a stuck first request is reported, not run twice', async () => {
    const k = randomUUID();
    const body = { type: 'SINGLE', amount: 3, currencies: ['TRX'], order_id: 'IDEM-OLD' };
    const first = await create(body, k);
    // A day later (the row's clock moved back) the key is free again: a new invoice.
    await app.prisma.idempotencyKey.update({ where: { merchantId_key: { merchantId, key: k } }, data: { createdAt: new Date(Date.now() - 25 * 3600_000) } });
    const later = await create(body, k);
    assert.equal(later.status, 200);
    assert.notEqual(later.json.id, first.json.id);
    assert.equal(await invoices({ orderId: 'IDEM-OLD' }), 2);

    // A first request that died mid-way (no answer recorded, long ago): whether it created
    // anything is unknown, so the repeat is refused with what to do, never run again.
    const stuck = randomUUID();
    await app.prisma.idempotencyKey.create({
      data: { merchantId, key: stuck, requestHash: requestHash('POST', '/v1/api/payment/create', body), createdAt: new Date(Date.now() - 10 * 60_000) },
    });
    const interrupted = await create(body, stuck);
    assert.equal(interrupted.status, 409, interrupted.text);
    assert.match(interrupted.json.detail, /interrupted before it answered/);
    assert.equal(await invoices({ orderId: 'IDEM-OLD' }), 2);
  });

  it('refuses a malformed key by name', async () => {
    // Visible ASCII has no space: 'a b' and two headers, which the server reads joined ('a, b'), are refused (issue 34).
    for (const bad of ['', ' ', 'x'.repeat(256), 'caf\u00e9', 'a b', ['k-1', 'k-2'] as unknown as string]) {
      const res = await app.api('/payment/create', key, { method: 'POST', body: { type: 'SINGLE', amount: 1, currencies: ['TRX'] }, headers: { 'idempotency-key': bad } });
      assert.equal(res.status, 400, JSON.stringify(bad));
      assert.match(res.json.detail, /Idempotency-Key must be 1 to 255 visible ASCII characters/);
    }
  });

  it('a repeated payout creation returns the first payout, and makes no second one', async () => {
    const k = `payout-${randomBytes(6).toString('hex')}`;
    const body = { currency: 'TRX', target_wallets: [{ address: randomAddress(), amount: 2 }, { address: randomAddress(), amount: 3.5 }] };
    const post = () => app.api('/payment/multiple_transfer/create', key, { method: 'POST', body, headers: { 'idempotency-key': k } });
    const first = await post();
    assert.equal(first.status, 200, first.text);
    const again = await post();
    assert.equal(again.text, first.text);
    assert.equal(again.headers['idempotent-replayed'], 'true');
    assert.equal(await invoices({ type: 'MULTIPLE_TRANSFER' }), 1);
  });

  it('a repeated estimate with a key gets its first figures again, on both of its paths; the key with another body is refused (issue 36)', async () => {
    const body = { currency: 'TRX', target_wallets: [{ address: randomAddress(), amount: 2 }] };
    const made = await invoices();
    for (const path of ['/payment/multiple_transfer/calculate', '/payment/create']) {
      const k = `estimate-${randomBytes(6).toString('hex')}`;
      const post = (b: object) => app.api(path, key, { method: 'POST', body: b, headers: { 'idempotency-key': k } });
      const first = await post(body);
      assert.equal(first.status, 200, first.text);
      assert.equal(first.headers['idempotent-replayed'], undefined);
      const again = await post(body);
      assert.equal(again.text, first.text);
      assert.equal(again.headers['idempotent-replayed'], 'true', path);
      const other = await post({ ...body, currency: 'USDT' });
      assert.equal(other.status, 422, other.text);
    }
    assert.equal(await invoices(), made, 'estimates create nothing');
  });
});
