/**
 * The scanner of solidified blocks while nothing waits for finality (issue 37): it reads once every
 * SCAN_IDLE_BLOCKS blocks, one request for all of them, and once a block again as soon as something
 * waits (lib/payments/scan.ts, `finalityAwaited`; worker/pacedScan.ts). Here SCAN_IDLE_BLOCKS is 50 (SCAN_BATCH_BLOCKS 100),
 * five seconds of the devnet's 100 ms blocks, so a read put off while something waited shows as a
 * booking some 50 blocks after the block became final; counts of blocks, never times.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { TronWeb } from 'tronweb';
import { createChain, type Chain } from '@/lib/chain';
import { deriveAccount } from '@/lib/chain/keys';
import { SOLIDIFIED_CURSOR } from '@/lib/db/chainCursors';
import { startApp, TEST_MNEMONIC, type TestApp } from '../helpers/app';
import { startDevnetProcess, waitFor, type DevnetProcess } from '../helpers/devnet';
import { asked, beatAfter, beatWindow } from '../helpers/heartbeat';
import { startWorker, type WorkerProcess } from '../helpers/worker';

const IDLE_BLOCKS = 50;
/**
 * The worker's settings here: a batch twice the idle span (the configuration refuses an idle span above half the batch, lib/config.ts).
 * With both at 50, a read planned 50 blocks on found a full batch whenever it was on time or late, and read
 * again at once: two reads a span, five where at most four were allowed in the chain lane (CI, 2026-12-01).
 */
const SCANNING = { SCAN_IDLE_BLOCKS: String(IDLE_BLOCKS), SCAN_BATCH_BLOCKS: String(2 * IDLE_BLOCKS) };
/** A booking this many blocks or more past its block was put off (an idle read waits IDLE_BLOCKS); by the first read after finality, a few. */
const PROMPT_BLOCKS = IDLE_BLOCKS / 2;

/** The block the scanner of solidified blocks has read up to (its cursor), or -1 before its first read. */
const solidifiedCursor = async (app: TestApp) => (await app.prisma.chainCursor.findUnique({ where: { name: SOLIDIFIED_CURSOR } }))?.blockNumber ?? -1;

describe('the scanner of solidified blocks reads every SCAN_IDLE_BLOCKS blocks while nothing waits for finality (issue 37)', () => {
  let devnet: DevnetProcess;
  let app: TestApp;
  let worker: WorkerProcess;
  let chain: Chain;

  const cursor = () => solidifiedCursor(app);
  /** Returns just after the scanner of solidified blocks made a read that moved its cursor: an idle one's next read is IDLE_BLOCKS blocks on. */
  async function justAfterARead(): Promise<number> {
    const from = await cursor();
    for (;;) {
      const now = await cursor();
      if (now !== from) return now;
      await new Promise((r) => setTimeout(r, 10));
    }
  }

  before(async () => {
    // Final 10 blocks deep, not 3: the head scanner must read ahead of this one for it to read idly (finalityAwaited), and on a
    // loaded machine it read about once in six blocks, now and then past the solidified head 3 blocks down: the scanner of
    // solidified blocks then read once a block, 13 reads in 102 blocks (a fresh-clone run, 2026-12-01). On mainnet it is 19.
    devnet = await startDevnetProcess({ blockMs: 100, solidifiedDepth: 10 });
    app = await startApp({ TRON_FULL_NODE_URL: devnet.url, TRON_USDT_CONTRACT: devnet.usdtContract });
    chain = createChain({ fullNodeUrl: devnet.url, apiKey: null, usdtContract: devnet.usdtContract, txExpirationMs: 60_000 });
    await devnet.pay(deriveAccount(TEST_MNEMONIC, 0, 'gas').address, '10000', 'TRX');
    worker = startWorker(app.env, devnet, SCANNING);
  });

  after(async () => {
    if (process.env.DEBUG_WORKER) (await import('node:fs')).writeFileSync(process.env.DEBUG_WORKER, worker?.output() ?? '');
    await worker?.stop();
    await app?.stop();
    await devnet?.stop();
  });

  it('an idle worker reads the solidified blocks about once every SCAN_IDLE_BLOCKS blocks, not once a block', async () => {
    /** The worker's requests by endpoint, as its heartbeat last wrote them (every 5 s), and the devnet's head then. */
    // Past its start: both scanners' cursors set, the gas wallet's funding booked, a heartbeat written after that.
    await waitFor('the scanners started', async () => ((await app.prisma.chainCursor.count({ where: { name: { in: [SOLIDIFIED_CURSOR, 'head'] } } })) === 2 ? true : null), 60_000);
    await waitFor('the gas wallet funding booked', async () => ((await app.prisma.ledgerEntry.count()) > 0 ? true : null), 60_000);
    // The blocks made in the window: the head as each heartbeat is found (within a poll of its writing).
    const first = await beatAfter(app.prisma, new Date());
    const firstHead = await chain.getBlockNumber();
    const later = await beatAfter(app.prisma, new Date(first.at.getTime() + 9_000 - 1));
    const blocks = (await chain.getBlockNumber()) - firstHead;
    const { delta } = asked(first, later);
    const reads = delta('walletsolidity/getblockbylimitnext');
    const headReads = delta('wallet/getblockbylimitnext');
    const seen = `${reads} reads of solidified blocks and ${headReads} of the head's in ${blocks} blocks`;
    assert.ok(blocks >= 50, `the devnet made blocks: ${seen}`);
    assert.ok(reads >= 1, `it still reads: ${seen}`);
    // Once a block (here once every SCAN_POLL_MS, 2 blocks) was 0.5 a block; once every 50 blocks is 0.02.
    assert.ok(reads * 10 <= blocks, `fewer than one read in ten blocks: ${seen}`);
    // The head scanner reads as before: it is what sees a payment first.
    assert.ok(headReads * 10 > blocks, `the head scanner reads on: ${seen}`);
  });

  it('a payment seen at the head is booked final by the first read after its block is final, not the next idle one', async () => {
    const { key } = await app.createMerchant({ targetWallet: (TronWeb.createRandom() as unknown as { address: string }).address });
    const res = await app.api('/payment/create', key, { method: 'POST', body: { type: 'SINGLE', amount: 10, currencies: ['TRX'] } });
    assert.equal(res.status, 200, res.text);
    const inv = res.json as { id: number; address: string; currencies_amounts: Record<string, number> };
    // Paid just after an idle read: the next idle read would come IDLE_BLOCKS blocks on.
    await justAfterARead();
    await devnet.pay(inv.address, String(inv.currencies_amounts.TRX), 'TRX');
    const { payment, at } = await waitFor('the payment booked final', async () => {
      const p = await app.prisma.transaction.findFirst({ where: { invoiceId: inv.id, type: 'PAYMENT' } });
      return p?.solidified ? { payment: p, at: await cursor() } : null;
    }, 30_000);
    assert.notEqual(payment.expiresAt, null, 'recorded by the head scanner (it keeps the transaction expiration), then made final');
    assert.ok(at - payment.blockNumber! < PROMPT_BLOCKS, `booked by a read that ended at block ${at}, the payment in block ${payment.blockNumber}`);
  });

  it("a payment's forward is booked final by the first read after its block is final: a send out waits too, not the next idle read", async () => {
    const { key } = await app.createMerchant({ targetWallet: (TronWeb.createRandom() as unknown as { address: string }).address });
    const res = await app.api('/payment/create', key, { method: 'POST', body: { type: 'SINGLE', amount: 10, currencies: ['TRX'] } });
    assert.equal(res.status, 200, res.text);
    const inv = res.json as { id: number; address: string; currencies_amounts: Record<string, number> };
    await devnet.pay(inv.address, String(inv.currencies_amounts.TRX), 'TRX');
    // The forward's follow reads the node once this scanner has read its block (lib/sends/steps.ts,
    // lookDue): with nothing else waiting once the payment is final, it must still read once a block.
    const { send, at } = await waitFor('the forward confirmed', async () => {
      const f = await app.prisma.transaction.findFirst({ where: { invoiceId: inv.id, sendPurpose: 'FORWARD', sendState: 'CONFIRMED' } });
      return f ? { send: f, at: await cursor() } : null;
    }, 60_000);
    assert.ok(at - send.blockNumber! < PROMPT_BLOCKS, `confirmed after a read that ended at block ${at}, the forward in block ${send.blockNumber}`);
  });

  it("a send of ours out in no block known (the node dropped it) waits for nothing before its expiration: idle reads, and it lands once the node takes it", async () => {
    const { key } = await app.createMerchant({ targetWallet: (TronWeb.createRandom() as unknown as { address: string }).address });
    const res = await app.api('/payment/create', key, { method: 'POST', body: { type: 'SINGLE', amount: 10, currencies: ['TRX'] } });
    assert.equal(res.status, 200, res.text);
    const inv = res.json as { id: number; address: string; currencies_amounts: Record<string, number> };
    // Every broadcast of its forward dropped: it stays out, in no block, until the fault is cleared (it expires 60 s on).
    await devnet.fault.drop({ from: inv.address });
    try {
      await devnet.pay(inv.address, String(inv.currencies_amounts.TRX), 'TRX');
      const out = await waitFor('the forward broadcast', () => app.prisma.transaction.findFirst({ where: { invoiceId: inv.id, sendPurpose: 'FORWARD', sendState: 'BROADCAST' } }), 60_000);
      const first = await beatAfter(app.prisma, new Date());
      const firstHead = await chain.getBlockNumber();
      const later = await beatAfter(app.prisma, new Date(first.at.getTime() + 9_000 - 1));
      const blocks = (await chain.getBlockNumber()) - firstHead;
      const reads = asked(first, later).delta('walletsolidity/getblockbylimitnext');
      const seen = `${reads} reads of solidified blocks in ${blocks} blocks, the forward out and in no block`;
      const still = await app.prisma.transaction.findUniqueOrThrow({ where: { id: out.id } });
      assert.ok(still.sendState === 'BROADCAST' && still.blockNumber === null && still.expiresAt! > new Date(), `the window ended with the forward still out, unexpired: ${seen}`);
      // Once a block until its follow found its block (which a dropped send never is in): about 45 here.
      assert.ok(reads <= Math.ceil(blocks / IDLE_BLOCKS) + 1, `at most one read in ${IDLE_BLOCKS} blocks: ${seen}`);
    } finally {
      await devnet.fault.clear();
    }
    // The node takes it now: broadcast again by its follow, it lands, and is confirmed by the first read after its block is final.
    const { send, at } = await waitFor('the forward confirmed', async () => {
      const f = await app.prisma.transaction.findFirst({ where: { invoiceId: inv.id, sendPurpose: 'FORWARD', sendState: 'CONFIRMED' } });
      return f ? { send: f, at: await cursor() } : null;
    }, 60_000);
    assert.ok(at - send.blockNumber! < PROMPT_BLOCKS, `confirmed after a read that ended at block ${at}, the forward in block ${send.blockNumber}`);
  });

  it('a top-up of a merchant wallet, seen at the head and recorded only once final, is recorded by the first read after its block is final', async () => {
    const { merchant } = await app.createMerchant();
    await justAfterARead();
    await devnet.pay(merchant.topupWalletAddress, '5', 'TRX');
    const { topup, at } = await waitFor('the top-up recorded', async () => {
      const t = await app.prisma.transaction.findFirst({ where: { merchantId: merchant.id, type: 'TOPUP' } });
      return t ? { topup: t, at: await cursor() } : null;
    }, 30_000);
    assert.ok(at - topup.blockNumber! < PROMPT_BLOCKS, `recorded by a read that ended at block ${at}, the top-up in block ${topup.blockNumber}`);
  });

  it('an invoice whose deadline passes while the worker is idle times out by the first read past it, not the next idle one', async () => {
    const { key } = await app.createMerchant();
    const res = await app.api('/payment/create', key, { method: 'POST', body: { type: 'SINGLE', amount: 10, currencies: ['TRX'] } });
    assert.equal(res.status, 200, res.text);
    const inv = res.json as { id: number };
    // Its deadline a moment after an idle read: the next idle read would come IDLE_BLOCKS blocks on.
    await justAfterARead();
    const expiredAt = new Date(Date.now() + 500);
    await app.prisma.invoice.update({ where: { id: inv.id }, data: { expiredAt } });
    const due = await waitFor('the deadline passed', async () => (Date.now() > expiredAt.getTime() ? chain.getBlockNumber() : null));
    const at = await waitFor('the invoice timed out', async () => ((await app.api(`/payment/get/${inv.id}`, key)).json.status === 'TIMEOUT' ? cursor() : null), 30_000);
    // Judged by the scanned chain time: the read that passed the deadline ends a few blocks past the head when it passed.
    assert.ok(at - due < PROMPT_BLOCKS, `timed out after a read that ended at block ${at}, the head at block ${due} when the deadline passed`);
  });
});

describe('the scanner of solidified blocks reads for a payment awaiting finality once its block is due, not once a block until then (issue 37)', () => {
  // Final 200 blocks deep (20 s of 100 ms blocks): a payment waits that long for its finality, and the
  // scanner, read once a block meanwhile, would ask the node for each of the 200 blocks on the way.
  let devnet: DevnetProcess;
  let app: TestApp;
  let worker: WorkerProcess;

  before(async () => {
    devnet = await startDevnetProcess({ blockMs: 100, solidifiedDepth: 200 });
    app = await startApp({ TRON_FULL_NODE_URL: devnet.url, TRON_USDT_CONTRACT: devnet.usdtContract });
    worker = startWorker(app.env, devnet, SCANNING);
  });

  after(async () => {
    await worker?.stop();
    await app?.stop();
    await devnet?.stop();
  });

  /** A new invoice's payment, seen at the head and not final (200 blocks deep), once the scanner has learnt when a solidified head is due. */
  async function paidAwaitingFinality() {
    // The chain older than its finality depth, and two solidified heads past genesis read.
    const cursor = () => solidifiedCursor(app);
    const firstFinal = await waitFor('a block past genesis final and read', async () => ((await cursor()) > 0 ? cursor() : null), 60_000);
    await waitFor('a second read of solidified blocks', async () => ((await cursor()) > firstFinal ? true : null), 30_000);
    const { key } = await app.createMerchant({ targetWallet: (TronWeb.createRandom() as unknown as { address: string }).address });
    const res = await app.api('/payment/create', key, { method: 'POST', body: { type: 'SINGLE', amount: 10, currencies: ['TRX'] } });
    assert.equal(res.status, 200, res.text);
    const inv = res.json as { id: number; address: string; currencies_amounts: Record<string, number> };
    await devnet.pay(inv.address, String(inv.currencies_amounts.TRX), 'TRX');
    const seen = await waitFor('the payment seen at the head', async () => app.prisma.transaction.findFirst({ where: { invoiceId: inv.id, type: 'PAYMENT' } }), 30_000);
    assert.equal(seen.solidified, false, 'seen before its block is final (200 blocks deep)');
    return seen;
  }

  it('after the devnet stalls (a loaded machine: its blocks then final seconds later after their stamps than the scanner learnt), still about one read in SCAN_IDLE_BLOCKS blocks', async () => {
    const seen = await paidAwaitingFinality();
    // The stall inside the window. The scanner planned each read by the shortest of the lags it kept, learnt before
    // the stall, so each read came 4 s early, found a part of the 50 blocks, and planned the next early again: 6-7
    // reads in this window (lib/chain/pace.ts), as a fresh-clone run's 5 in about 103 blocks (2026-12-02).
    const first = await beatAfter(app.prisma, new Date());
    await devnet.stall(4_000);
    const later = await beatAfter(app.prisma, new Date(first.at.getTime() + 9_000 - 1));
    const { delta } = asked(first, later);
    // Counted by the clock, as above: the devnet made none in the stall, so this is more blocks than it made.
    const blocks = Math.round((later.at.getTime() - first.at.getTime()) / 100);
    const reads = delta('walletsolidity/getblockbylimitnext');
    const note = `${reads} reads of solidified blocks in about ${blocks} blocks, a 4 s stall among them, the payment waiting for finality`;
    const still = await app.prisma.transaction.findUniqueOrThrow({ where: { id: seen.id } });
    assert.equal(still.solidified, false, `the window ended before the payment's block was final: ${note}`);
    assert.ok(reads <= Math.ceil(blocks / IDLE_BLOCKS) + 1, `at most one read in ${IDLE_BLOCKS} blocks: ${note}`);
    // Final by the depth, not by the devnet's control: that makes the chain final up to the head at once, and no
    // block is final again until 200 more are made, which the case below would count as a scanner reading for nothing.
    await waitFor('the payment booked final', async () => ((await app.prisma.transaction.findUniqueOrThrow({ where: { id: seen.id } })).solidified ? true : null), 60_000);
  });

  it('while a payment seen at the head waits for finality, about one read in SCAN_IDLE_BLOCKS blocks, and it is booked once its block is final', async () => {
    const seen = await paidAwaitingFinality();
    // A window well inside the 20 s the payment's block takes to be final.
    const { first, later } = await beatWindow(app.prisma, new Date(), 6_000);
    const { delta } = asked(first, later);
    const blocks = Math.round((later.at.getTime() - first.at.getTime()) / 100);
    const reads = delta('walletsolidity/getblockbylimitnext');
    const note = `${reads} reads of solidified blocks and ${delta('wallet/getblockbylimitnext')} of the head's in about ${blocks} blocks, the payment waiting for finality`;
    const still = await app.prisma.transaction.findUniqueOrThrow({ where: { id: seen.id } });
    assert.equal(still.solidified, false, `the window ended before the payment's block was final: ${note}`);
    // Once a block (once every SCAN_POLL_MS, 200 ms, as it is late by the time it is due) was about 30 here; once the
    // first block awaited is due, at most IDLE_BLOCKS on, is about one.
    assert.ok(reads <= Math.ceil(blocks / IDLE_BLOCKS) + 1, `at most one read in ${IDLE_BLOCKS} blocks: ${note}`);
    assert.ok(delta('wallet/getblockbylimitnext') * 10 > blocks, `the head scanner reads on: ${note}`);
    // Made final now (the devnet's control): booked by a read at most IDLE_BLOCKS blocks on.
    await devnet.solidify();
    await waitFor('the payment booked final', async () => ((await app.prisma.transaction.findUniqueOrThrow({ where: { id: seen.id } })).solidified ? true : null), 30_000);
  });
});
