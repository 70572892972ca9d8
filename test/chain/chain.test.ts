import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { TronWeb } from 'tronweb';
import { ChainUnavailableError, createChain, parseChainConfig, TxRejectedError, type Chain, type TransferRequest } from '@/lib/chain';
import { nodeRequestCounts } from '@/lib/chain/meter';
import { startDevnetProcess, waitFor, type DevnetProcess } from '../helpers/devnet';

let devnet: DevnetProcess;
let chain: Chain;
let faucet: { address: string; privateKey: string };

const TRX = 1_000_000n;

async function newAccount() {
  const a = await TronWeb.createAccount();
  return { address: a.address.base58, privateKey: a.privateKey };
}

/** Sends and waits until the transaction is in a block. */
async function send(build: Promise<{ txId: string; signedTx: Parameters<Chain['broadcast']>[0] }>) {
  const signed = await build;
  await chain.broadcast(signed.signedTx);
  return waitFor(`block with ${signed.txId}`, async () => {
    const s = await chain.getTransactionStatus(signed.txId);
    return s.status === 'unknown' ? undefined : { ...s, txId: signed.txId };
  });
}

async function fundedAccount(trx: bigint, usdt = 0n) {
  const account = await newAccount();
  await send(chain.buildSignedTrxTransfer(faucet.privateKey, account.address, trx));
  if (usdt) await send(chain.buildSignedUsdtTransfer(faucet.privateKey, account.address, usdt, 100n * TRX));
  return account;
}

before(async () => {
  devnet = await startDevnetProcess();
  chain = createChain(parseChainConfig({ TRON_FULL_NODE_URL: devnet.url, TRON_USDT_CONTRACT: devnet.usdtContract }));
  faucet = { address: devnet.faucetAddress, privateKey: devnet.faucetPrivateKey };
});

after(async () => {
  await devnet?.stop();
});

describe('chain layer against the devnet', () => {
  test('reads parameters, blocks, balances and activation', async () => {
    const params = await chain.getChainParameters();
    assert.equal(params.energyFeeSun, 100n);
    assert.equal(params.bandwidthFeeSun, 1000n);
    assert.equal(params.createAccountSystemFeeSun + params.createAccountFeeSun, 1_100_000n);
    const head = await chain.getBlockNumber();
    const solid = await chain.getConfirmedBlockNumber();
    assert.ok(solid <= head && head - solid <= devnet.solidifiedDepth + 1);

    const usdtOnly = await newAccount();
    await send(chain.buildSignedUsdtTransfer(faucet.privateKey, usdtOnly.address, 3n, 100n * TRX));
    assert.equal(await chain.getUsdtBalance(usdtOnly.address), 3n);
    assert.equal(await chain.isActivated(usdtOnly.address), false);
    assert.equal(await chain.getTrxBalance(usdtOnly.address), 0n);
    await send(chain.buildSignedTrxTransfer(faucet.privateKey, usdtOnly.address, 1n));
    assert.equal(await chain.isActivated(usdtOnly.address), true);
    assert.equal(await chain.getTrxBalance(usdtOnly.address), 1n);
    const resources = await chain.getAccountResources(usdtOnly.address);
    assert.equal(resources.freeBandwidthLimit, 600n);
  });

  test('finds a USDT holder from the chain alone, so estimates need no funded caller', async () => {
    assert.equal(await chain.findUsdtHolder(1n), faucet.address, 'the devnet faucet deployed the token and holds it');
    const faucetUnits = await chain.getUsdtBalance(faucet.address);
    assert.equal(await chain.findUsdtHolder(faucetUnits + 1n), null, 'nobody on this devnet holds more than the faucet');
  });

  test('estimates agree with what the node charges, to the sun', async () => {
    const sender = await fundedAccount(200n * TRX, 50_000_000n);
    const holder = await fundedAccount(1n * TRX, 1n);
    const cases: TransferRequest[] = [
      { token: 'TRX', from: sender.address, to: (await newAccount()).address, amount: 2n * TRX },
      { token: 'TRX', from: sender.address, to: holder.address, amount: 3n },
      { token: 'USDT', from: sender.address, to: (await newAccount()).address, amount: 1_000_000n },
      { token: 'USDT', from: sender.address, to: holder.address, amount: 7n },
      { token: 'TRX', from: sender.address, to: holder.address, amount: 5n },
    ];
    const heads = () => nodeRequestCounts().requests['wallet/getblock'] ?? 0;
    await chain.getBlockNumber();
    for (const request of cases) {
      const asked = heads();
      const cost = await chain.estimateTransfer(request);
      // Its transaction is weighed on a head read before, of any age: every block gives the same size (issue 37).
      assert.equal(heads(), asked, 'the estimate asked the node for no head');
      const trxBefore = await chain.getTrxBalance(sender.address);
      const build =
        request.token === 'TRX'
          ? chain.buildSignedTrxTransfer(sender.privateKey, request.to, request.amount)
          : chain.buildSignedUsdtTransfer(sender.privateKey, request.to, request.amount, cost.energyFeeSun);
      const status = await send(build);
      // In a block and not failed: final already ('confirmed') when the poll that found it came more than
      // the devnet's three 50 ms blocks late, as on a machine running two suites at once (docs/testing.md).
      assert.ok(status.status === 'pending' || status.status === 'confirmed', JSON.stringify(status, (_k, v: unknown) => (typeof v === 'bigint' ? String(v) : v)));
      const label = `${request.token} to ${request.to === holder.address ? 'an account' : 'a new address'}`;
      assert.equal(status.feeSun, cost.totalFeeSun, `fee of ${label}`);
      assert.equal(status.energyUsed, cost.energy, `energy of ${label}`);
      if (cost.createsAccount) assert.equal(status.bandwidthFeeSun, 100_000n, 'the create-account fee replaces bandwidth');
      else assert.equal(status.bandwidthUsed + status.bandwidthFeeSun / 1000n, cost.bandwidth, `bandwidth of ${label}`);
      const spent = request.token === 'TRX' ? request.amount : 0n;
      assert.equal(await chain.getTrxBalance(sender.address), trxBefore - spent - cost.totalFeeSun, `balance after ${label}`);
    }
  });

  test('a batch estimate spends the free bandwidth once and activates each new address once', async () => {
    const sender = await fundedAccount(50n * TRX, 10n);
    const fresh = (await newAccount()).address;
    const batch = await chain.estimateBatch([
      { token: 'TRX', from: sender.address, to: fresh, amount: 1n },
      { token: 'TRX', from: sender.address, to: fresh, amount: 1n },
      { token: 'TRX', from: sender.address, to: devnet.faucetAddress, amount: 1n },
      { token: 'TRX', from: sender.address, to: devnet.faucetAddress, amount: 1n },
      { token: 'TRX', from: sender.address, to: devnet.faucetAddress, amount: 1n },
      { token: 'USDT', from: sender.address, to: devnet.faucetAddress, amount: 1n },
    ]);
    assert.equal(batch.accountsCreated, 1);
    assert.equal(batch.activationFeeSun, 1_100_000n);
    const [, second, third, fourth, fifth, usdt] = batch.transfers;
    assert.equal(second!.bandwidthFeeSun, 0n);
    assert.equal(third!.bandwidthFeeSun, 0n);
    assert.ok(fourth!.bandwidthFeeSun > 0n && fifth!.bandwidthFeeSun > 0n, 'the 600 free bytes are gone after two transfers');
    assert.equal(usdt!.energy, 64_285n);
    assert.equal(batch.totalFeeSun, batch.transfers.reduce((s, c) => s + c.totalFeeSun, 0n));
  });

  test('build, crash, broadcast again: the send is idempotent and its status provable', async () => {
    const to = await newAccount();
    const signed = await chain.buildSignedTrxTransfer(faucet.privateKey, to.address, 9n * TRX);
    const stored = JSON.parse(JSON.stringify(signed)) as typeof signed;
    assert.equal((await chain.getTransactionStatus(stored.txId, stored.expiresAt)).status, 'unknown');
    assert.equal((await chain.getTransactionStatus(stored.txId, stored.expiresAt)).expired, false);

    assert.deepEqual(await chain.broadcast(stored.signedTx), { txId: stored.txId, alreadyKnown: false });
    assert.deepEqual(await chain.broadcast(stored.signedTx), { txId: stored.txId, alreadyKnown: true });
    const landed = await waitFor('block', async () => {
      const s = await chain.getTransactionStatus(stored.txId);
      return s.status === 'pending' || s.status === 'confirmed' ? s : undefined;
    });
    assert.equal(landed.feeSun, 1_100_000n);
    await waitFor('solidified', async () => (await chain.getTransactionStatus(stored.txId)).status === 'confirmed');
    assert.deepEqual(await chain.broadcast(stored.signedTx), { txId: stored.txId, alreadyKnown: true });
    assert.equal(await chain.getTrxBalance(to.address), 9n * TRX);
  });

  test('a transaction never broadcast becomes provably expired', async () => {
    const quick = createChain({ ...parseChainConfig({ TRON_FULL_NODE_URL: devnet.url, TRON_USDT_CONTRACT: devnet.usdtContract }), txExpirationMs: 300 });
    const signed = await quick.buildSignedTrxTransfer(faucet.privateKey, (await newAccount()).address, 1n);
    const status = await waitFor('expiry', async () => {
      const s = await quick.getTransactionStatus(signed.txId, signed.expiresAt);
      return s.expired ? s : undefined;
    });
    assert.equal(status.status, 'unknown');
    await assert.rejects(quick.broadcast(signed.signedTx), (e: unknown) => e instanceof TxRejectedError && e.code === 'TRANSACTION_EXPIRATION_ERROR' && e.retry === 'rebuild');
  });

  test('a failed USDT transfer is reported as failed with its burned fee', async () => {
    const to = await newAccount();
    const status = await send(chain.buildSignedUsdtTransfer(faucet.privateKey, to.address, 5n, 10n * 100n));
    assert.equal(status.status, 'failed');
    assert.equal(status.result, 'OUT_OF_ENERGY');
    assert.equal(status.energyFeeSun, 1000n);
    assert.match(status.message ?? '', /Not enough energy/);
  });

  test('typed errors: rejected transactions carry the node code; an unreachable node is retryable', async () => {
    const poor = await fundedAccount(1n * TRX);
    const signed = await chain.buildSignedTrxTransfer(poor.privateKey, devnet.faucetAddress, 5n * TRX);
    await assert.rejects(chain.broadcast(signed.signedTx), (e: unknown) => {
      assert.ok(e instanceof TxRejectedError);
      assert.equal(e.code, 'CONTRACT_VALIDATE_ERROR');
      assert.match(e.nodeMessage, /balance is not sufficient/);
      assert.equal(e.retry, 'never');
      assert.equal(e.permanent, false, 'a balance can be topped up: not a refusal for good');
      return true;
    });
    const offline = createChain(parseChainConfig({ TRON_FULL_NODE_URL: 'http://127.0.0.1:9', TRON_USDT_CONTRACT: devnet.usdtContract }));
    await assert.rejects(offline.getBlockNumber(), ChainUnavailableError);
    await assert.rejects(offline.broadcast(signed.signedTx), ChainUnavailableError);
  });

  test('tells a smart contract from a wallet, and TRX sent to one is refused for good (issue 34)', async () => {
    assert.equal(await chain.isContract(devnet.usdtContract), true);
    assert.equal(await chain.isContract(devnet.faucetAddress), false, 'an account');
    assert.equal(await chain.isContract((await newAccount()).address), false, 'not even an account');
    const signed = await chain.buildSignedTrxTransfer(faucet.privateKey, devnet.usdtContract, 1n * TRX);
    await assert.rejects(chain.broadcast(signed.signedTx), (e: unknown) => {
      assert.ok(e instanceof TxRejectedError);
      assert.equal(e.code, 'CONTRACT_VALIDATE_ERROR');
      assert.match(e.nodeMessage, /Cannot transfer TRX to a smartContract/);
      assert.equal(e.permanent, true);
      return true;
    });
    const offline = createChain(parseChainConfig({ TRON_FULL_NODE_URL: 'http://127.0.0.1:9', TRON_USDT_CONTRACT: devnet.usdtContract }));
    await assert.rejects(offline.isContract(devnet.faucetAddress), ChainUnavailableError);
  });

  test('a read or a broadcast whose connection the node resets is sent again; a node that keeps resetting is unavailable', async () => {
    // Issue 27, finding 7: "getaccount: socket hang up" on a kept-alive connection the node had just closed.
    const to = await newAccount();
    await devnet.fault.reset(2);
    assert.equal(await chain.getTrxBalance(devnet.faucetAddress, 'head') > 0n, true);
    assert.deepEqual((await devnet.fault.list()).resets, { left: 0, done: 2 });

    const signed = await chain.buildSignedTrxTransfer(faucet.privateKey, to.address, 2n * TRX);
    await devnet.fault.reset(1);
    assert.deepEqual(await chain.broadcast(signed.signedTx), { txId: signed.txId, alreadyKnown: false });
    await devnet.fault.reset(1);
    assert.equal((await chain.getTransactionStatus(signed.txId)).status === 'failed', false);
    assert.deepEqual((await devnet.fault.list()).resets, { left: 0, done: 4 });

    await devnet.fault.reset(100);
    await assert.rejects(chain.getBlockNumber(), (e: unknown) => e instanceof ChainUnavailableError && /socket hang up|ECONNRESET/i.test(e.message));
    const { resets } = (await devnet.fault.list());
    assert.ok(resets.done - 4 > 1 && resets.done - 4 <= 5, `a few attempts, not endless: ${resets.done - 4}`);
    await devnet.fault.clear();
    assert.equal(await chain.getTrxBalance(to.address) >= 0n, true);
  });

  test("keeps a provider's rate limit: after a 429 nothing is sent until its Retry-After, nor after a 403 naming a suspension; every request counted (issue 37)", async () => {
    const sent = () => nodeRequestCounts().requests['wallet/getblock'] ?? 0;
    const throttled = () => nodeRequestCounts().throttled;
    const paused = (e: unknown) => e instanceof ChainUnavailableError && e.status === 429 && /asked for no requests until .*none sent/.test(e.message);
    const before = sent();
    await chain.getBlockNumber();
    assert.equal(sent(), before + 1, 'each request counted by its endpoint');

    // TronGrid past a key's rate: 429 with Retry-After. One request meets it; every call while the wait lasts fails at once, unsent.
    await devnet.fault.throttle({ seconds: 2 });
    const throttledBefore = throttled();
    await assert.rejects(chain.getBlockNumber(), (e: unknown) => e instanceof ChainUnavailableError && e.status === 429);
    for (let i = 0; i < 10; i++) await assert.rejects(chain.getBlockNumber(), paused);
    assert.equal((await devnet.fault.list()).throttle.answered, 1, 'one request went into the refusal');
    assert.equal(throttled(), throttledBefore + 1);
    assert.equal(sent(), before + 2, 'the refused calls were never sent');
    await waitFor('the wait over', async () => chain.getBlockNumber().catch(() => null), 10_000);
    assert.equal((await devnet.fault.list()).throttle.answered, 1, 'nothing sent before the wait named was over');

    // Without Retry-After, TronGrid's body names the suspension ("suspended for Ns"), on a 403: kept the same way.
    await devnet.fault.throttle({ seconds: 1, status: 403, retryAfter: false });
    await assert.rejects(chain.getTrxBalance(faucet.address), (e: unknown) => e instanceof ChainUnavailableError && e.status === 403);
    await assert.rejects(chain.getBlockNumber(), paused);
    assert.equal((await devnet.fault.list()).throttle.answered, 1);
    await waitFor('the wait over', async () => chain.getBlockNumber().catch(() => null), 10_000);
  });

  test('final blocks read at the head are taken from that read after one request for the solidified head, and read again once a reorganisation replaced one (issue 37)', async () => {
    // Its own devnet: a reorganisation needs blocks deeper than the shared one's three, and traffic
    // makes blocks worth keeping (a quiet chain's are read again: HEAD_READS_WORTH_TRANSFERS).
    const deep = await startDevnetProcess({ blockMs: 200, solidifiedDepth: 20 });
    try {
      const config = parseChainConfig({ TRON_FULL_NODE_URL: deep.url, TRON_USDT_CONTRACT: deep.usdtContract });
      const c = createChain(config);
      /** The truth: a chain layer that read nothing at the head reads every final block from the node. */
      const finalRead = (from: number, to: number) => createChain(config).getBlocks(from, to, 'solidified');
      const count = (endpoint: string) => nodeRequestCounts().requests[endpoint] ?? 0;
      const solidHead = () => c.getConfirmedBlockNumber();
      await deep.traffic(30, 0.7);

      // A payment in a head block, read at the head with ten blocks after it; then that block and
      // those after it are replaced, the payment left out of them.
      await waitFor('a few blocks made', async () => ((await c.getBlockNumber()) >= 5 ? true : null));
      const payee = (await newAccount()).address;
      const paid = await deep.pay(payee, '5', 'TRX');
      const inBlock = await waitFor('the payment in a block', async () => (await c.getTransactionStatus(paid)).blockNumber);
      await waitFor('ten blocks after it', async () => ((await c.getBlockNumber()) >= inBlock + 10 ? true : null));
      const from = inBlock - 3;
      const atHead = await c.getBlocks(from, from + 99);
      assert.ok(atHead.some((b) => b.transfers.some((t) => t.txId === paid)), 'the head read holds the payment');
      await deep.reorg({ fromBlock: inBlock, leaveOut: [paid] });
      await waitFor('the replaced blocks final', async () => ((await solidHead()) >= inBlock ? true : null), 30_000);
      const full = count('walletsolidity/getblockbylimitnext');
      const afterReorg = await c.getBlocks(from, from + 99, 'solidified');
      assert.equal(count('walletsolidity/getblockbylimitnext'), full + 1, 'a replaced block is read again, never taken from the head read');
      assert.deepEqual(afterReorg, await finalRead(from, afterReorg.at(-1)!.number), 'the blocks as the final chain holds them');
      assert.notEqual(afterReorg.find((b) => b.number === inBlock)?.id, atHead.find((b) => b.number === inBlock)?.id, 'the payment\'s block was replaced');

      // A payment after it, read at the head: once final, its blocks are taken from that read, with one request.
      const next = (await solidHead()) + 1;
      const later = await deep.pay(payee, '6', 'TRX');
      const laterBlock = await waitFor('the later payment in a block', async () => (await c.getTransactionStatus(later)).blockNumber);
      // Read at the head ten blocks on: the solidified head reaches the payment's block well before it passes the blocks read.
      await waitFor('ten blocks after it', async () => ((await c.getBlockNumber()) >= laterBlock + 10 ? true : null));
      await c.getBlocks(next, next + 99);
      await waitFor('its block final', async () => ((await solidHead()) >= laterBlock ? true : null), 30_000);
      const [blocksReads, headReads] = [count('walletsolidity/getblockbylimitnext'), count('walletsolidity/getblock')];
      const taken = await c.getBlocks(next, next + 99, 'solidified');
      assert.deepEqual([count('walletsolidity/getblockbylimitnext') - blocksReads, count('walletsolidity/getblock') - headReads], [0, 1], 'one request: the solidified head');
      assert.ok(taken.some((b) => b.transfers.some((t) => t.txId === later)), 'the later payment among them');
      assert.deepEqual(taken, await finalRead(next, taken.at(-1)!.number), 'the same blocks, ids and transfers as a read of them now');
    } finally {
      await deep.stop();
    }
  });

  test('scanning a range of blocks returns every transfer exactly once', async () => {
    const start = (await chain.getBlockNumber()) + 1;
    const payee = await newAccount();
    const sent = new Map<string, { token: string; amount: bigint; success: boolean }>();
    for (let i = 1; i <= 12; i++) {
      const usdt = i % 3 === 0;
      const signed = usdt
        ? await chain.buildSignedUsdtTransfer(faucet.privateKey, payee.address, BigInt(i), i === 6 ? 1000n : 100n * TRX)
        : await chain.buildSignedTrxTransfer(faucet.privateKey, payee.address, BigInt(i) * TRX);
      await chain.broadcast(signed.signedTx);
      sent.set(signed.txId, { token: usdt ? 'USDT' : 'TRX', amount: usdt ? BigInt(i) : BigInt(i) * TRX, success: i !== 6 });
      if (i % 4 === 0) await new Promise((r) => setTimeout(r, devnet.blockMs * 2));
    }
    const last = [...sent.keys()].at(-1)!;
    const end = await waitFor('last block', async () => (await chain.getTransactionStatus(last)).blockNumber);

    const seen = new Map<string, number>();
    const bySingleBlock = [];
    for (let n = start; n <= end; n++) bySingleBlock.push(...((await chain.getBlockTransfers(n)) ?? []));
    const { transfers: byRange, lastBlock } = await chain.getBlockRangeTransfers(start, end);
    assert.equal(lastBlock, end);
    assert.deepEqual(byRange, bySingleBlock);

    for (const t of byRange.filter((t) => t.to === payee.address)) {
      const key = `${t.txId}:${t.logIndex}`;
      seen.set(key, (seen.get(key) ?? 0) + 1);
      const expected = sent.get(t.txId);
      assert.ok(expected, `unexpected transfer ${t.txId}`);
      assert.deepEqual({ token: t.token, amount: t.amount, success: t.success }, expected);
      assert.equal(t.from, devnet.faucetAddress);
    }
    assert.equal(seen.size, sent.size);
    assert.ok([...seen.values()].every((count) => count === 1));
    assert.equal(await chain.getBlockTransfers(end + 10_000), null);
  });
});
