import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createChain, type Chain } from '@/lib/chain';
import { deriveAccount } from '@/lib/chain/keys';
import { startApp, TEST_MNEMONIC, type TestApp } from '../helpers/app';
import { startDevnetProcess, waitFor, type DevnetProcess } from '../helpers/devnet';
import { assertReconciled } from '../helpers/reconcile';
import { startWorker, type WorkerProcess } from '../helpers/worker';
import { scriptArgs } from '../helpers/scripts';

const ROOT = path.resolve(import.meta.dirname, '../..');

/**
 * The reconciliation covers every service address (issue 13; docs/worker.md, "The ledger"):
 * merchants' top-up and activation wallets, and a gas wallet funded before the scanner's
 * first block (the worker starts without SCAN_START_BLOCK, as in production).
 */
describe('reconcile: merchant wallets and the gas wallet opening balance', () => {
  let devnet: DevnetProcess;
  let app: TestApp;
  let worker: WorkerProcess;
  let chain: Chain;
  const gasWallet = deriveAccount(TEST_MNEMONIC, 0, 'gas');

  async function pay(address: string, amount: string, currency: 'TRX' | 'USDT') {
    const res = await fetch(`${devnet.url}/devnet/pay`, { method: 'POST', body: JSON.stringify({ address, amount, currency }) });
    assert.equal(res.status, 200, await res.clone().text());
  }
  const reconcile = () => spawnSync(process.execPath, scriptArgs('scripts/reconcile.ts'), { cwd: ROOT, env: { ...process.env, ...app.env }, encoding: 'utf8' });

  before(async () => {
    devnet = await startDevnetProcess({ blockMs: 100, solidifiedDepth: 3 });
    app = await startApp({ TRON_FULL_NODE_URL: devnet.url, TRON_USDT_CONTRACT: devnet.usdtContract });
    chain = createChain({ fullNodeUrl: devnet.url, apiKey: null, usdtContract: devnet.usdtContract, txExpirationMs: 60_000 });
    // The operator funds the gas wallet before the worker ever ran.
    await pay(gasWallet.address, '5000', 'TRX');
    await pay(gasWallet.address, '7', 'USDT');
    await waitFor('gas wallet funded', async () => (await chain.getTrxBalance(gasWallet.address)) === 5_000_000_000n && (await chain.getUsdtBalance(gasWallet.address)) === 7_000_000n);
    // SCAN_START_BLOCK empty = unset: the scanner starts at the chain's head, after the funding.
    worker = startWorker(app.env, devnet, { SCAN_START_BLOCK: '' });
  });

  after(async () => {
    await worker?.stop();
    await app?.stop();
    await devnet?.stop();
  });

  it('books the gas wallet funded before the first scanned block: reconcile passes', async () => {
    await waitFor('the scanner started', async () => (await app.prisma.chainCursor.findUnique({ where: { name: 'main' } })) !== null, 30_000);
    const opening = await app.prisma.ledgerEntry.findMany({ where: { address: gasWallet.address }, orderBy: { currency: 'asc' } });
    assert.deepEqual(opening.map((e) => [e.currency, e.kind, e.deltaUnits]), [['TRX', 'OTHER_IN', 5_000_000_000n], ['USDT', 'OTHER_IN', 7_000_000n]]);
    await assertReconciled(app.prisma, chain);
  });

  it('books top-ups of a merchant\'s top-up (TRX, USDT) and activation wallets, and reports a tampered top-up wallet', async () => {
    const { merchant } = await app.createMerchant({});
    await pay(merchant.topupWalletAddress, '12.5', 'TRX');
    await pay(merchant.topupWalletAddress, '3', 'USDT');
    await pay(merchant.activationWalletAddress, '4', 'TRX');
    await waitFor('three top-ups credited', async () => (await app.prisma.transaction.count({ where: { merchantId: merchant.id, type: 'TOPUP', paymentState: 'SETTLED' } })) === 3, 30_000);
    const booked = await app.prisma.ledgerEntry.findMany({ where: { address: { in: [merchant.topupWalletAddress, merchant.activationWalletAddress] } } });
    assert.equal(booked.length, 3);
    assert.ok(booked.every((e) => e.kind === 'PAYMENT_IN'));
    await assertReconciled(app.prisma, chain);
    const ok = reconcile();
    assert.equal(ok.status, 0, ok.stderr);

    // One sun appears at the top-up wallet without any transfer: the proof names the address.
    // Judged against the final state: the extra sun is waited for there.
    const was = await chain.getTrxBalance(merchant.topupWalletAddress, 'solidified');
    await devnet.setBalance(merchant.topupWalletAddress, { balanceSun: was + 1n });
    await waitFor('the extra sun final on chain', async () => (await chain.getTrxBalance(merchant.topupWalletAddress, 'solidified')) === was + 1n);
    const bad = reconcile();
    assert.equal(bad.status, 1, bad.stdout);
    assert.match(bad.stderr, new RegExp(`MISMATCH address ${merchant.topupWalletAddress} TRX: chain holds ${was + 1n}, ledger says ${was} \\(1 unbooked\\)`));
  });
});

/**
 * `npm run dev` funds the gas wallet and starts the worker at once: the funding is still pending
 * (broadcast, in no block yet) when the worker reads the opening balance. A node shows pending
 * transfers in its head state, so a balance read at the head already held the funding, the scan
 * started after that head, and the funding's block, coming next, was booked again: the ledger
 * counted the funding twice and `npm run reconcile` failed on every fresh dev run. The opening
 * balance must be the state of the solidified block the scan starts after.
 */
describe('reconcile: a gas wallet funded by a transfer still pending when the worker first starts', () => {
  let devnet: DevnetProcess;
  let app: TestApp;
  let worker: WorkerProcess;
  let chain: Chain;
  const gasWallet = deriveAccount(TEST_MNEMONIC, 0, 'gas');

  before(async () => {
    // Long blocks, so the worker starts while the funding waits for its block; final one block later.
    devnet = await startDevnetProcess({ blockMs: 10_000, solidifiedDepth: 1 });
    app = await startApp({ TRON_FULL_NODE_URL: devnet.url, TRON_USDT_CONTRACT: devnet.usdtContract });
    chain = createChain({ fullNodeUrl: devnet.url, apiKey: null, usdtContract: devnet.usdtContract, txExpirationMs: 60_000 });
  });

  after(async () => {
    await worker?.stop();
    await app?.stop();
    await devnet?.stop();
  });

  it('books the funding once: from the scan, not also in the opening balance', async () => {
    // Pay just after a block, so the next one is ten seconds away.
    const head = await chain.getBlockNumber();
    await waitFor('a new block', async () => (await chain.getBlockNumber()) > head, 30_000);
    // Finality held until the worker has read its opening balance: on a loaded machine the worker's start took longer
    // than the funding took to be final (two blocks, 20 s), and the case found its own condition unmet ("the scan
    // starts after block 4, the funding is in block 4", a fresh-clone run, 2026-12-01).
    await devnet.holdFinality(true);
    const res = await fetch(`${devnet.url}/devnet/pay`, { method: 'POST', body: JSON.stringify({ address: gasWallet.address, amount: '5000', currency: 'TRX' }) });
    assert.equal(res.status, 200, await res.clone().text());
    const { txid } = (await res.json()) as { txid: string };
    worker = startWorker(app.env, devnet, { SCAN_START_BLOCK: '' });
    await waitFor('the scanner started', async () => (await app.prisma.chainCursor.findUnique({ where: { name: 'main' } })) !== null, 60_000);
    await devnet.holdFinality(false);
    const funding = await waitFor('the funding in a block', async () => {
      const s = await chain.getTransactionStatus(txid);
      return s.blockNumber !== null ? s : null;
    }, 30_000);
    // What makes this case: the worker read the chain before the funding's block was final.
    const cursor = await app.prisma.chainCursor.findUniqueOrThrow({ where: { name: 'main' } });
    assert.ok(cursor.blockNumber < funding.blockNumber!, `the scan starts after block ${cursor.blockNumber}, the funding is in block ${funding.blockNumber}`);
    await waitFor('the funding block scanned', async () => (await app.prisma.chainCursor.findUniqueOrThrow({ where: { name: 'main' } })).blockNumber >= funding.blockNumber!, 60_000);
    const booked = await app.prisma.ledgerEntry.aggregate({ where: { address: gasWallet.address, currency: 'TRX' }, _sum: { deltaUnits: true } });
    assert.equal(booked._sum.deltaUnits, 5_000_000_000n);
    await assertReconciled(app.prisma, chain);
  });
});
