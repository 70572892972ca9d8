import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { TronWeb } from 'tronweb';
import { createChain, type Chain } from '@/lib/chain';
import { queryRows, sql } from '@/lib/db/sql';
import { deriveAccount } from '@/lib/chain/keys';
import { tokenUnits } from '@/lib/money/tokens';
import { changeTargetState } from '@/lib/payouts/targets';
import { startApp, TEST_MNEMONIC, type TestApp } from '../helpers/app';
import { startDevnetProcess, waitFor, type DevnetProcess } from '../helpers/devnet';
import { assertReconciled } from '../helpers/reconcile';
import { dbGate as openDbGate } from '../helpers/dbGate';
import { startWorker, type WorkerProcess } from '../helpers/worker';

/**
 * A payout's crash windows and racing workers, on the devnet with the real worker (issue 22,
 * docs/payouts.md, "Crash safety"). Each payout's address holds more than it needs (a second
 * top-up), so a target paid twice would really be paid twice: every target's balance is read
 * from the chain, not only from our rows. The worker is stopped at a chosen step by a database
 * lock the test holds in an open transaction, seen in pg_stat_activity; nothing is timed.
 */

const randomAddress = () => (TronWeb.createRandom() as unknown as { address: string }).address;
const bigintJson = (v: unknown) => JSON.stringify(v, (_k, x) => (typeof x === 'bigint' ? String(x) : x));
// Sends live the default minute: a send held by the node across a worker's restart must not expire meanwhile.
const WORKER_ENV = { SEND_RETRY_BASE_MS: '500' };
/** The completing top-up: far more than the quote, so that a double send would have the funds to go through. */
const TOPUP_TRX = '100';

describe('mass payouts: crash windows and racing workers', () => {
  let devnet: DevnetProcess;
  let app: TestApp;
  let worker: WorkerProcess | undefined;
  let chain: Chain;
  let key: string;
  let merchantId: number;

  const post = (path: string, body: unknown) => app.api(path, key, { method: 'POST', body });
  const get = async (id: number) => (await app.api(`/payment/get/${id}`, key)).json;
  const dump = async (id: number) => `invoice ${JSON.stringify(await get(id))}; rows ${bigintJson(await app.prisma.transaction.findMany({ where: { invoiceId: id }, orderBy: { id: 'asc' } }))}\n${worker?.output().slice(-3000) ?? ''}`;
  async function waitStatus(id: number, status: string, timeoutMs = 60_000) {
    try {
      return await waitFor(`payout ${id} to be ${status}`, async () => ((await get(id)).status === status ? get(id) : null), timeoutMs);
    } catch (err) {
      throw new Error(`${(err as Error).message}; ${await dump(id)}`);
    }
  }

  /** A TRX payout of `n` fresh targets. */
  async function payout(n: number) {
    const targets = Array.from({ length: n }, (_, i) => ({ address: randomAddress(), amount: 2 + i }));
    const inv = (await post('/payment/multiple_transfer/create', { currency: 'TRX', target_wallets: targets })).json;
    return { inv, targets };
  }

  /** Pays 1 TRX, a first part of the top-up, and waits until it is recorded: the anchor of the payout's sends. */
  async function anchorOf(inv: { id: number; address: string }) {
    await devnet.pay(inv.address, '1', 'TRX');
    return waitFor('the first top-up recorded', () => app.prisma.transaction.findFirst({ where: { invoiceId: inv.id, type: 'TOPUP' } }), 30_000);
  }

  /** Every target holds exactly its amount on chain, one confirmed send each, and the payout is COMPLETED. */
  async function assertPaidOnce(inv: { id: number }, targets: { address: string; amount: number }[]) {
    const done = await waitStatus(inv.id, 'COMPLETED', 90_000);
    assert.deepEqual(done.failed_targets, []);
    for (const t of targets) assert.equal(await chain.getTrxBalance(t.address), tokenUnits(t.amount), `target ${t.address} paid exactly once on chain`);
    const sends = await app.prisma.transaction.findMany({ where: { invoiceId: inv.id, sendPurpose: 'PAYOUT_TARGET' } });
    for (const [i] of targets.entries()) assert.equal(sends.filter((s) => s.sendIndex === i && s.sendState === 'CONFIRMED').length, 1, `one confirmed send for target ${i}: ${await dump(inv.id)}`);
    assert.deepEqual(
      (await app.prisma.payoutTarget.findMany({ where: { invoiceId: inv.id } })).map((t) => t.state),
      targets.map(() => 'PAID'),
    );
  }

  const dbGate = (sql: string, params: unknown[]) => openDbGate(app.env.DATABASE_URL!, sql, params);


  before(async () => {
    devnet = await startDevnetProcess({ blockMs: 100, solidifiedDepth: 3 });
    app = await startApp({ TRON_FULL_NODE_URL: devnet.url, TRON_USDT_CONTRACT: devnet.usdtContract });
    chain = createChain({ fullNodeUrl: devnet.url, apiKey: null, usdtContract: devnet.usdtContract, txExpirationMs: 60_000 });
    const created = await app.createMerchant();
    key = created.key;
    merchantId = created.merchant.id;
    await devnet.pay(deriveAccount(TEST_MNEMONIC, 0, 'gas').address, '1000', 'TRX');
    worker = startWorker(app.env, devnet, WORKER_ENV);
  });

  after(async () => {
    await worker?.stop();
    await app?.stop();
    await devnet?.stop();
  });

  it('SIGKILL after signing, before the send is stored: the signed bytes are never sent, each target paid once', async () => {
    const { inv, targets } = await payout(3);
    const anchor = await anchorOf(inv);
    // A send row references its anchor (source_id): storing it needs a key-share lock on the anchor
    // row, which the test holds. The worker signs each target's send and waits there to store it.
    const gate = await dbGate('SELECT id FROM transactions WHERE id = $1 FOR UPDATE', [anchor.id]);
    try {
      await devnet.pay(inv.address, TOPUP_TRX, 'TRX');
      const pids = await waitFor('signed target sends waiting to be stored', async () => {
        const p = await gate.waiting('%INSERT INTO%transactions%');
        return p.length > 0 ? p : null;
      }, 60_000);
      await worker!.kill();
      await gate.terminate(pids);
    } finally {
      await gate.release();
    }
    assert.equal(await app.prisma.transaction.count({ where: { invoiceId: inv.id, sendPurpose: 'PAYOUT_TARGET' } }), 0, 'nothing was stored');
    for (const t of targets) assert.equal(await chain.getTrxBalance(t.address), 0n, 'nothing was sent');
    worker = startWorker(app.env, devnet, WORKER_ENV);
    await assertPaidOnce(inv, targets);
  });

  it('SIGKILL after broadcast, before the send is followed to its block: followed on restart, not rebuilt', async () => {
    const { inv, targets } = await payout(3);
    await anchorOf(inv);
    // The node holds the payout's sends 50 blocks before including them: the worker dies meanwhile.
    await devnet.fault.delay({ from: inv.address, blocks: 50 });
    try {
      await devnet.pay(inv.address, TOPUP_TRX, 'TRX');
      const held = await waitFor('target sends broadcast and held by the node', () => app.prisma.transaction.findFirst({ where: { invoiceId: inv.id, sendPurpose: 'PAYOUT_TARGET', sendState: 'BROADCAST' } }), 60_000);
      await worker!.kill();
      // The one door refuses to end a target whose send's fate is not known yet.
      const target = await app.prisma.payoutTarget.findUniqueOrThrow({ where: { invoiceId_index: { invoiceId: inv.id, index: held.sendIndex! } } });
      assert.equal(target.state, 'SENDING');
      await assert.rejects(app.prisma.$transaction((tx) => changeTargetState(tx, target, 'FAILED')), /in flight/);
      assert.equal(await app.prisma.transaction.count({ where: { invoiceId: inv.id, sendPurpose: 'PAYOUT_TARGET', sendState: 'CONFIRMED' } }), 0, 'killed before any send was confirmed');
      worker = startWorker(app.env, devnet, WORKER_ENV);
      await assertPaidOnce(inv, targets);
    } finally {
      await devnet.fault.clear();
    }
    assert.equal(await app.prisma.transaction.count({ where: { invoiceId: inv.id, sendPurpose: 'PAYOUT_TARGET' } }), targets.length, 'no send was built twice');
    const paid = await app.prisma.payoutTarget.findFirstOrThrow({ where: { invoiceId: inv.id } });
    await assert.rejects(app.prisma.$transaction((tx) => changeTargetState(tx, paid, 'RETURNED')), /PAID → RETURNED is not allowed/);
  });

  it('SIGKILL between confirm and settle: the confirmed sends are booked once and the targets become PAID, nothing sent again', async () => {
    const { inv, targets } = await payout(3);
    await anchorOf(inv);
    // Held 50 blocks, so the test takes the target rows below before any send is confirmed.
    await devnet.fault.delay({ from: inv.address, blocks: 50 });
    let gate: Awaited<ReturnType<typeof dbGate>> | undefined;
    try {
      await devnet.pay(inv.address, TOPUP_TRX, 'TRX');
      await waitFor('every target SENDING', async () => (await app.prisma.payoutTarget.count({ where: { invoiceId: inv.id, state: 'SENDING' } })) === targets.length, 60_000);
      // Marking a target PAID updates its row, which the test now holds: the worker stops after the confirmation.
      gate = await dbGate('SELECT index FROM payout_targets WHERE invoice_id = $1 FOR UPDATE', [inv.id]);
      const pids = await waitFor('confirmed sends waiting to be settled', async () => {
        const p = await gate!.waiting('%payout_targets%');
        const confirmed = await app.prisma.transaction.count({ where: { invoiceId: inv.id, sendPurpose: 'PAYOUT_TARGET', sendState: 'CONFIRMED' } });
        return p.length > 0 && confirmed > 0 ? p : null;
      }, 60_000).catch(async (err) => {
        throw new Error(`${(err as Error).message}: ${await dump(inv.id)}`);
      });
      assert.notEqual((await get(inv.id)).status, 'COMPLETED');
      await worker!.kill();
      await gate.terminate(pids);
    } finally {
      await gate?.release();
      await devnet.fault.clear();
    }
    worker = startWorker(app.env, devnet, WORKER_ENV);
    await assertPaidOnce(inv, targets);
    assert.equal(await app.prisma.transaction.count({ where: { invoiceId: inv.id, sendPurpose: 'PAYOUT_TARGET' } }), targets.length, 'no send was built twice');
  });

  it('two workers racing on one payout: each target is stored, sent and paid once', async () => {
    await worker!.stop();
    worker = undefined;
    const workers = [startWorker(app.env, devnet, WORKER_ENV), startWorker(app.env, devnet, WORKER_ENV)];
    const { inv, targets } = await payout(2);
    const anchor = await anchorOf(inv);
    // The test holds each target's first send key (an uncommitted row, tied to no invoice so no
    // claim is blocked): a worker that signed a target's send waits on the unique index to store
    // it. The first to claim the payout waits there past its lease (LEASE_SECONDS, 5 s in tests);
    // the second claims the payout too and signs its own sends for the same targets.
    const gate = await dbGate(
      `INSERT INTO transactions (merchant_id, type, trn_hash, chain_ref, from_address, to_address, amount_units, currency, send_key)
       SELECT $1, 'TRANSFER', 'gate-' || i, 'gate-' || i || ':send', $2, $2, 0, 'TRX', $3 || ':target-' || i || ':1' FROM generate_series(0, $4) AS i`,
      [merchantId, inv.address, String(anchor.id), targets.length - 1],
    );
    try {
      await devnet.pay(inv.address, TOPUP_TRX, 'TRX');
      await waitFor('both workers waiting to store a send for each target', async () => (await gate.waiting('%INSERT INTO%transactions%')).length >= 2 * targets.length, 60_000).catch(async (err) => {
        throw new Error(`${(err as Error).message}: ${JSON.stringify(await gate.activity())} ${await dump(inv.id)}`);
      });
      // Let go together: each target's two signed sends race to be stored.
      await gate.release();
      await assertPaidOnce(inv, targets);
      assert.equal(await app.prisma.transaction.count({ where: { invoiceId: inv.id, sendPurpose: 'PAYOUT_TARGET' } }), targets.length, 'the losing insert of each target stored nothing');
    } finally {
      await gate.release();
      await Promise.all(workers.map((w) => w.stop()));
      worker = startWorker(app.env, devnet, WORKER_ENV);
    }
  });

  it('a worker paused past its claim while another finished the payout writes nothing over the finished books', async () => {
    await worker!.stop();
    const a = startWorker(app.env, devnet, WORKER_ENV);
    let b: WorkerProcess | undefined;
    const { inv, targets } = await payout(2);
    const anchor = await anchorOf(inv);
    // Worker A signs each target's send and waits on the first gate to store it (as above). Meanwhile the test takes the
    // payout's row: once A has stored and broadcast the sends (held by the node, so still in flight), it waits there to
    // keep its claim, and the test pauses its process. The node holds the sends 20 blocks: in flight when A looks.
    await devnet.fault.delay({ from: inv.address, blocks: 20 });
    const sendKeys = await dbGate(
      `INSERT INTO transactions (merchant_id, type, trn_hash, chain_ref, from_address, to_address, amount_units, currency, send_key)
       SELECT $1, 'TRANSFER', 'gate-' || i, 'gate-' || i || ':send', $2, $2, 0, 'TRX', $3 || ':target-' || i || ':1' FROM generate_series(0, $4) AS i`,
      [merchantId, inv.address, String(anchor.id), targets.length - 1],
    );
    let claim: Awaited<ReturnType<typeof dbGate>> | undefined;
    try {
      await devnet.pay(inv.address, TOPUP_TRX, 'TRX');
      await waitFor('worker A waiting to store a send for each target', async () => (await sendKeys.waiting('%INSERT INTO%transactions%')).length >= targets.length, 60_000);
      // NO KEY: the sends' rows reference the payout (a key-share lock), and must be stored.
      claim = await dbGate('SELECT id FROM invoices WHERE id = $1 FOR NO KEY UPDATE', [inv.id]);
      await sendKeys.release();
      await waitFor('worker A, its sends in flight, waiting to keep its claim', async () => (await claim!.waiting('%UPDATE%invoices%lease_until%')).length > 0, 60_000).catch(async (err) => {
        throw new Error(`${(err as Error).message}: ${JSON.stringify(await claim!.activity())} ${await dump(inv.id)}`);
      });
      assert.equal(await app.prisma.transaction.count({ where: { invoiceId: inv.id, sendPurpose: 'PAYOUT_TARGET', sendState: 'BROADCAST' } }), targets.length);
      process.kill(a.pid, 'SIGSTOP');
      await claim.release();
      await waitFor("worker A's claim on the payout run out", async () => (await queryRows<{ out: boolean }>(app.prisma, sql`SELECT lease_until < now() AS out FROM invoices WHERE id = ${inv.id}`))[0]?.out === true, 30_000);
      // Worker B takes the payout over, follows the sends A broadcast to their blocks and finishes it.
      b = startWorker(app.env, devnet, WORKER_ENV);
      await assertPaidOnce(inv, targets).catch((err: unknown) => {
        throw new Error(`${(err as Error).message}\nworker B: ${b?.output().slice(-6000)}\nworker A: ${a.output().slice(-3000)}`);
      });
      const finished = await get(inv.id);
      assert.equal(finished.transfer_amounts.output.TRX, 5, `output: what the targets received (2 + 3 TRX): ${JSON.stringify(finished)}`);
      // A goes on from where it was paused, with what it knew then (both sends in flight), and ends its step (a stop lets it end).
      process.kill(a.pid, 'SIGCONT');
      await a.stop();
      const after = await get(inv.id);
      assert.equal(after.status, 'COMPLETED');
      assert.deepEqual(after.transfer_amounts, finished.transfer_amounts, `worker A wrote over the books of the payout B finished: ${a.output().slice(-2000)}`);
    } finally {
      await sendKeys.release();
      await claim?.release();
      await devnet.fault.clear();
      // Resumed in any case, else it would never end (one that has ended already has nothing to resume).
      try {
        process.kill(a.pid, 'SIGCONT');
      } catch {
        // ended
      }
      await a.stop();
      await b?.stop();
      worker = startWorker(app.env, devnet, WORKER_ENV);
    }
  });

  it('balances the books: every payout address and the gas wallet match the chain', async () => {
    await assertReconciled(app.prisma, chain);
  });
});
