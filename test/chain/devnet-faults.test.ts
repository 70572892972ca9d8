import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { resolve } from 'node:path';
import { after, afterEach, before, describe, test } from 'node:test';
import { TronWeb } from 'tronweb';
import { devnetControl, startDevnetProcess, waitFor, type DevnetProcess } from '../helpers/devnet';
import { hexMessage, newAccount, receipt, usdtBalanceOf, usdtTransferTx, type Account, type Signed } from '../helpers/tronweb';

// The devnet's fault controls, observed through an unmodified TronWeb as a wallet or the
// settlement worker would see them. Solidified 20 blocks deep so reorganisations have room.

let devnet: DevnetProcess;
let tw: TronWeb;

const TRX = 1_000_000n;
const ROOT = resolve(import.meta.dirname, '../..');

const faucet = (): Account => ({ address: devnet.faucetAddress, privateKey: devnet.faucetPrivateKey });

const info = (txId: string, client = tw) => receipt(client, txId);

async function signedTrx(from: Account, to: string, sun: bigint, client = tw): Promise<Signed> {
  return (await client.trx.sign(await client.transactionBuilder.sendTrx(to, Number(sun), from.address), from.privateKey)) as Signed;
}

async function signedUsdt(from: Account, to: string, units: bigint, feeLimit = 100_000_000): Promise<Signed> {
  const transaction = await usdtTransferTx(tw, devnet.usdtContract, from.address, to, units, feeLimit);
  return (await tw.trx.sign(transaction, from.privateKey)) as Signed;
}

async function broadcast(signed: Signed, client = tw) {
  const reply = await client.trx.sendRawTransaction(signed);
  assert.equal(reply.result, true, `refused: ${reply.code} ${hexMessage(reply.message)}`);
  return signed.txID;
}

const usdtBalance = (address: string) => usdtBalanceOf(tw, devnet.usdtContract, address);

const balance = async (address: string, client = tw) => BigInt(await client.trx.getUnconfirmedBalance(address));
const headNumber = async (client = tw) => (await client.trx.getCurrentBlock()).block_header.raw_data.number;
const waitBlocks = async (n: number) => {
  const start = await headNumber();
  await waitFor(`${n} blocks`, async () => (await headNumber()) >= start + n);
};

async function funded(trx: bigint, usdt = 0n): Promise<Account> {
  const a = await newAccount();
  await info(await broadcast(await signedTrx(faucet(), a.address, trx * TRX)));
  if (usdt > 0n) await info(await broadcast(await signedUsdt(faucet(), a.address, usdt * TRX)));
  return a;
}

before(async () => {
  devnet = await startDevnetProcess({ solidifiedDepth: 20 });
  tw = new TronWeb({ fullHost: devnet.url });
});

afterEach(async () => {
  await devnet?.fault.clear();
});

after(async () => {
  await devnet?.stop();
});

describe('devnet fault controls', () => {
  test('drop: the next broadcast is answered result:true and never included; the one after is', async () => {
    const to = await newAccount();
    const fault = await devnet.fault.drop();
    assert.equal(fault.count, 1);
    const dropped = await broadcast(await signedTrx(faucet(), to.address, 3n * TRX));
    assert.equal(await balance(to.address), 0n, 'not even pending');
    const kept = await broadcast(await signedTrx(faucet(), to.address, 2n * TRX));
    await info(kept);
    await waitBlocks(5);
    assert.deepEqual(await tw.trx.getUnconfirmedTransactionInfo(dropped), {});
    await assert.rejects(tw.trx.getTransaction(dropped), /Transaction not found/);
    assert.equal(await balance(to.address), 2n * TRX);
    const [listed] = (await devnet.fault.list()).faults;
    assert.deepEqual({ count: listed!.count, hits: listed!.hits }, { count: 0, hits: [dropped] });
  });

  test('drop by address: every payment to it vanishes until cleared, others go through', async () => {
    const victim = await newAccount();
    const other = await newAccount();
    await devnet.fault.drop({ to: victim.address });
    const lost = [await broadcast(await signedTrx(faucet(), victim.address, TRX)), await broadcast(await signedUsdt(faucet(), victim.address, TRX))];
    const ok = await broadcast(await signedTrx(faucet(), other.address, TRX));
    await info(ok);
    await waitBlocks(3);
    for (const txid of lost) assert.deepEqual(await tw.trx.getUnconfirmedTransactionInfo(txid), {});
    assert.equal(await balance(victim.address), 0n);
    assert.equal(await usdtBalance(victim.address), 0n);
    await devnet.fault.clear();
    await info(await broadcast(await signedTrx(faucet(), victim.address, TRX)));
    assert.equal(await balance(victim.address), TRX);
  });

  test('a dropped broadcast is still validated: what the node refuses is refused, not dropped', async () => {
    const poor = await funded(1n);
    await devnet.fault.drop({ from: poor.address });
    const reply = await tw.trx.sendRawTransaction(await signedTrx(poor, faucet().address, 5n * TRX));
    assert.equal(reply.code, 'CONTRACT_VALIDATE_ERROR');
    assert.equal((await devnet.fault.list()).faults[0]!.hits.length, 0);
  });

  test('refuse: every broadcast to the address is validated, then refused with the code and message given (default: TRX to a contract); nothing lands', async () => {
    const sender = await funded(10n);
    const to = await newAccount();
    const fault = await devnet.fault.refuse({ to: to.address });
    assert.equal(fault.kind, 'refuse');
    for (let i = 0; i < 2; i++) {
      const signed = await signedTrx(sender, to.address, BigInt(i + 1) * TRX);
      const reply = await tw.trx.sendRawTransaction(signed);
      assert.equal(reply.result, undefined, 'no result key, as java-tron refuses');
      assert.equal(reply.code, 'CONTRACT_VALIDATE_ERROR');
      assert.equal(hexMessage(reply.message), 'Contract validate error : Cannot transfer TRX to a smartContract.');
    }
    // Still validated first: what the node refuses anyway is refused for its own reason and does not use the fault up.
    const tooMuch = await tw.trx.sendRawTransaction(await signedTrx(sender, to.address, 1_000n * TRX));
    assert.match(hexMessage(tooMuch.message), /balance is not sufficient/);
    assert.equal((await devnet.fault.list()).faults[0]!.hits.length, 2);
    await devnet.fault.clear();
    await devnet.fault.refuse({ to: to.address, count: 1, code: 'SIGERROR', message: 'Validate signature error: miss sig or contract' });
    const once = await tw.trx.sendRawTransaction(await signedTrx(sender, to.address, 3n * TRX));
    assert.equal(once.code, 'SIGERROR');
    assert.equal(hexMessage(once.message), 'Validate signature error: miss sig or contract');
    await info(await broadcast(await signedTrx(sender, to.address, 1n * TRX)));
    assert.equal(await balance(to.address), 1n * TRX, 'only the broadcast after the fault was used up landed');
  });

  test('delay: a held broadcast is invisible, refused as a duplicate, then included K blocks late', async () => {
    const to = await newAccount();
    await devnet.fault.delay({ blocks: 8 });
    const signed = await signedTrx(faucet(), to.address, 4n * TRX);
    const before = await headNumber();
    const txid = await broadcast(signed);
    const after = await headNumber();
    assert.deepEqual((await devnet.fault.list()).held.map((h) => h.txid), [txid]);
    await waitBlocks(3);
    assert.deepEqual(await tw.trx.getUnconfirmedTransactionInfo(txid), {});
    const again = await tw.trx.sendRawTransaction(signed);
    assert.equal(again.code, 'DUP_TRANSACTION_ERROR');
    const receipt = await info(txid);
    assert.ok(receipt.blockNumber >= before + 9 && receipt.blockNumber <= after + 9, `block ${receipt.blockNumber} for a broadcast at head ${before}..${after}`);
    assert.equal(await balance(to.address), 4n * TRX);
  });

  test('delay meets changed state: a held USDT transfer from a drained sender is included as REVERT and burns its energy', async () => {
    const payer = await funded(50n, 10n);
    const to = await funded(1n, 1n);
    await devnet.fault.delay({ blocks: 6, from: payer.address });
    const txid = await broadcast(await signedUsdt(payer, to.address, 10n * TRX));
    await devnet.setBalance(payer.address, { usdtUnits: 0n });
    const receipt = await info(txid);
    assert.equal(receipt.receipt.result, 'REVERT');
    assert.equal(receipt.receipt.energy_usage_total, 13_285);
    assert.equal(receipt.receipt.energy_fee, 1_328_500);
    assert.equal(await usdtBalance(to.address), TRX);
  });

  test('fail OUT_OF_ENERGY: included, failed, the whole fee limit burned, no USDT moved', async () => {
    const payer = await funded(100n, 10n);
    const to = await funded(1n, 1n);
    await devnet.fault.fail({ result: 'OUT_OF_ENERGY', from: payer.address });
    const before = await balance(payer.address);
    const txid = await broadcast(await signedUsdt(payer, to.address, 5n * TRX, 30_000_000));
    const receipt = await info(txid);
    assert.equal(receipt.receipt.result, 'OUT_OF_ENERGY');
    assert.equal(receipt.result, 'FAILED');
    assert.equal(receipt.receipt.energy_usage_total, 300_000);
    assert.equal(receipt.receipt.energy_fee, 30_000_000);
    assert.equal(receipt.fee, 30_000_000, 'bandwidth from the free 600');
    assert.equal((await tw.trx.getTransaction(txid)).ret[0]!.contractRet, 'OUT_OF_ENERGY');
    assert.equal(await balance(payer.address), before - 30_000_000n);
    assert.equal(await usdtBalance(payer.address), 10n * TRX);
    assert.equal(await usdtBalance(to.address), TRX);
  });

  test('fail REVERT: included, failed, the energy used burned, no USDT moved; TRX transfers are not matched', async () => {
    const payer = await funded(100n, 10n);
    const to = await funded(1n, 1n);
    await devnet.fault.fail({ result: 'REVERT', from: payer.address });
    const trx = await info(await broadcast(await signedTrx(payer, to.address, TRX)));
    assert.equal(trx.result, undefined, 'a TRX transfer has no contract receipt to fail');
    const receipt = await info(await broadcast(await signedUsdt(payer, to.address, 5n * TRX)));
    assert.equal(receipt.receipt.result, 'REVERT');
    assert.equal(receipt.result, 'FAILED');
    assert.equal(receipt.receipt.energy_usage_total, 13_285);
    assert.equal(receipt.receipt.energy_fee, 1_328_500);
    assert.equal(await usdtBalance(to.address), TRX);
  });

  test('reorg leaving a transaction out: it disappears with its balances; solidified blocks stay; it can be broadcast again', async () => {
    const from = await funded(20n);
    const to = await newAccount();
    const signed = await signedTrx(from, to.address, 5n * TRX);
    const receipt = await info(await broadcast(signed));
    const oldBlock = await tw.trx.getBlockByNumber(receipt.blockNumber);
    const solid = await tw.trx.getConfirmedCurrentBlock();
    const result = await devnet.reorg({ fromBlock: receipt.blockNumber, leaveOut: [signed.txID] });
    assert.equal(result.forkBlock, receipt.blockNumber - 1);
    assert.deepEqual(result.leftOut, [signed.txID]);
    assert.deepEqual(result.dropped, []);

    assert.deepEqual(await tw.trx.getUnconfirmedTransactionInfo(signed.txID), {});
    await assert.rejects(tw.trx.getTransaction(signed.txID), /Transaction not found/);
    assert.equal(await balance(to.address), 0n);
    assert.equal(await balance(from.address), 20n * TRX, 'amount and fee back');
    const newBlock = await tw.trx.getBlockByNumber(receipt.blockNumber);
    assert.notEqual(newBlock.blockID, oldBlock.blockID);
    assert.equal((await tw.trx.getBlockByNumber(solid.block_header.raw_data.number)).blockID, solid.blockID, 'a solidified block never changes');

    // Left out, not remembered: the sender may broadcast it again (its reference block, below the fork, is still on the chain).
    await broadcast(signed);
    await info(signed.txID);
    assert.equal(await balance(to.address), 5n * TRX);
  });

  test('reorg reordering: the later of two competing USDT spends goes first and the other reverts', async () => {
    const payer = await funded(100n, 10n);
    const first = await funded(1n, 1n);
    const second = await funded(1n, 1n);
    // Both built now, so both reference a block below the fork and survive it.
    const [sa, sb] = [await signedUsdt(payer, first.address, 10n * TRX), await signedUsdt(payer, second.address, 10n * TRX)];
    const a = await broadcast(sa);
    const ra = await info(a);
    const b = await broadcast(sb);
    const rb = await info(b);
    assert.equal(ra.receipt.result, 'SUCCESS');
    assert.equal(rb.receipt.result, 'REVERT');
    assert.ok(rb.blockNumber > ra.blockNumber);
    const result = await devnet.reorg({ fromBlock: ra.blockNumber, order: [b] });
    assert.deepEqual(result.dropped, []);
    const [na, nb] = [await info(a), await info(b)];
    assert.equal(nb.receipt.result, 'SUCCESS');
    assert.equal(na.receipt.result, 'REVERT');
    assert.ok(nb.blockNumber <= na.blockNumber);
    assert.equal(await usdtBalance(second.address), 11n * TRX);
    assert.equal(await usdtBalance(first.address), TRX);
  });

  test('reorg drops what referenced a replaced block (TaPoS), as the new branch cannot hold it', async () => {
    const to = await newAccount();
    const first = await info(await broadcast(await signedTrx(faucet(), to.address, TRX)));
    // Built after `first` was included: references a block the reorg replaces.
    const later = await signedTrx(faucet(), to.address, 2n * TRX);
    await info(await broadcast(later));
    const result = await devnet.reorg({ fromBlock: first.blockNumber });
    assert.deepEqual(result.dropped, [{ txid: later.txID, code: 'TAPOS_ERROR', message: 'Tapos check error.' }]);
    assert.equal(await balance(to.address), TRX);
    const again = await tw.trx.sendRawTransaction(later);
    assert.equal(again.code, 'TAPOS_ERROR');
  });

  test('a reorganised chain survives a crash: the log replays the new branch, not the old one', async () => {
    const to = await newAccount();
    const signed = await signedTrx(faucet(), to.address, 3n * TRX);
    const receipt = await info(await broadcast(signed));
    const result = await devnet.reorg({ fromBlock: receipt.blockNumber, leaveOut: [signed.txID] });
    await devnet.restart({ crash: true });
    assert.equal((await tw.trx.getBlockByNumber(receipt.blockNumber)).blockID, result.blocks[0]);
    assert.deepEqual(await tw.trx.getUnconfirmedTransactionInfo(signed.txID), {});
    assert.equal(await balance(to.address), 0n);
  });

  test('reorg refuses to touch solidified blocks or transactions outside the replaced blocks', async () => {
    await assert.rejects(devnet.reorg({ depth: 20 }), /400 depth must be below the solidified depth \(20\)/);
    await assert.rejects(devnet.reorg({ depth: 2, leaveOut: ['ab'.repeat(32)] }), /is not in the last 2 blocks/);
  });

  test('solidify: every block up to the head is final at once, the solidified API sees it, a reorganisation cannot touch it, and a crash keeps it final', async () => {
    // Its own devnet, final 1,000 blocks deep: only the control can have made these blocks final.
    const deep = await startDevnetProcess({ solidifiedDepth: 1000 });
    try {
      const client = new TronWeb({ fullHost: deep.url });
      const to = await newAccount();
      const from = { address: deep.faucetAddress, privateKey: deep.faucetPrivateKey };
      const signed = await signedTrx(from, to.address, 3n * TRX, client);
      const paid = await info(await broadcast(signed, client), client);
      const solidInfo = async () => (await (await fetch(`${deep.url}/walletsolidity/gettransactioninfobyid`, { method: 'POST', body: JSON.stringify({ value: signed.txID }) })).json()) as { blockNumber?: number };
      assert.equal((await solidInfo()).blockNumber, undefined, 'not final before the control');

      const { solidifiedBlock } = await deep.solidify();
      assert.ok(solidifiedBlock > paid.blockNumber, `the newest solidified block (#${solidifiedBlock}) is above the payment's (#${paid.blockNumber})`);
      assert.equal((await client.trx.getConfirmedCurrentBlock()).block_header.raw_data.number, solidifiedBlock);
      assert.equal((await solidInfo()).blockNumber, paid.blockNumber, 'the solidified API answers for the payment');
      await assert.rejects(deep.reorg({ fromBlock: paid.blockNumber, leaveOut: [signed.txID] }), new RegExp(`400 block #${paid.blockNumber} is solidified`));
      await assert.rejects(deep.reorg({ fromBlock: solidifiedBlock }), /is solidified/);
      await assert.rejects(devnetControl(deep.url, 'POST', 'solidify', { block: 3 }), /400/);

      await deep.restart({ crash: true });
      assert.equal((await client.trx.getConfirmedCurrentBlock()).block_header.raw_data.number, solidifiedBlock, 'still final after a crash');
      await assert.rejects(deep.reorg({ fromBlock: solidifiedBlock }), /is solidified/);
      // Blocks above it are not final and may be reorganised.
      await waitFor('a block above it', async () => (await headNumber(client)) > solidifiedBlock + 1);
      const result = await deep.reorg({ fromBlock: solidifiedBlock + 1 });
      assert.equal(result.forkBlock, solidifiedBlock);
    } finally {
      await deep.stop();
    }
  });

  test('hold finality: blocks keep coming and none turns final, the solidified API and the replica stay at the held block, a reorganisation deeper than the depth may replace what is above it, and released, finality moves on', async () => {
    const held = await devnet.holdFinality();
    const heldAt = held.solidifiedBlock;
    try {
      assert.equal(held.held, true);
      assert.deepEqual(await devnetControl(devnet.url, 'GET', 'finality'), held);
      await waitFor('25 blocks past the depth', async () => (await headNumber()) > heldAt + 20 + 25);
      assert.equal((await tw.trx.getConfirmedCurrentBlock()).block_header.raw_data.number, heldAt, 'nothing more turned final');
      const replica = new TronWeb({ fullHost: devnet.replicaUrl });
      assert.equal((await replica.trx.getConfirmedCurrentBlock()).block_header.raw_data.number, heldAt, "the replica's solidified API too");
      await assert.rejects(devnet.reorg({ fromBlock: heldAt }), new RegExp(`400 block #${heldAt} is solidified \\(finality is held at #${heldAt}\\)`));
      // More than 20 blocks (the solidified depth) replaced: none of them was final.
      const result = await devnet.reorg({ fromBlock: heldAt + 1 });
      assert.equal(result.forkBlock, heldAt);
      assert.ok(result.replaced.length > 20, `${result.replaced.length} blocks replaced`);
      await assert.rejects(devnetControl(devnet.url, 'POST', 'finality', { held: 'maybe' }), /400.*held/);
    } finally {
      assert.equal((await devnet.holdFinality(false)).held, false);
    }
    assert.ok((await tw.trx.getConfirmedCurrentBlock()).block_header.raw_data.number >= heldAt + 25, 'final again to the depth below the head');
  });

  test('replica lag: the replica serves the state K blocks behind; the balancer alternates head and replica; broadcasts through either land', async () => {
    const replica = new TronWeb({ fullHost: devnet.replicaUrl });
    const balancer = new TronWeb({ fullHost: devnet.balancerUrl });
    await waitFor('a chain longer than the lag', async () => (await headNumber()) > 70);
    await devnet.fault.lag(60);
    const shown = await devnetControl<{ replicaUrl: string; balancerUrl: string; replicaLag: number }>(devnet.url, 'GET', 'info');
    assert.deepEqual([shown.replicaUrl, shown.balancerUrl, shown.replicaLag], [devnet.replicaUrl, devnet.balancerUrl, 60]);
    const to = await newAccount();
    // Built against the replica's (old) reference block and broadcast through it: still valid, relayed to the head.
    await info(await broadcast(await signedTrx(faucet(), to.address, 6n * TRX, replica), replica));
    const [head, behind] = [await headNumber(), await headNumber(replica)];
    assert.ok(head - behind >= 59 && head - behind <= 61, `head ${head}, replica ${behind}`);
    assert.equal(await balance(to.address), 6n * TRX);
    assert.equal(await balance(to.address, replica), 0n, 'the replica has not seen it');
    const answers = [await balance(to.address, balancer), await balance(to.address, balancer), await balance(to.address, balancer), await balance(to.address, balancer)];
    assert.deepEqual(new Set(answers), new Set([0n, 6n * TRX]), `balancer answers ${answers.join(', ')}`);
    assert.notEqual(answers[0], answers[1]);
    await devnet.fault.lag(0);
    assert.equal(await balance(to.address, replica), 6n * TRX);
  });

  test('set balance: refill and drain TRX and USDT; TRX activates a new address', async () => {
    const fresh = await newAccount();
    await devnet.setBalance(fresh.address, { balanceSun: 5n * TRX, usdtUnits: 7n });
    assert.equal(await balance(fresh.address), 5n * TRX);
    assert.equal(await usdtBalance(fresh.address), 7n);
    assert.equal((await tw.trx.getUnconfirmedAccount(fresh.address)).address, TronWeb.address.toHex(fresh.address));
    await devnet.setBalance(fresh.address, { balanceSun: 0n });
    const reply = await tw.trx.sendRawTransaction(await signedTrx(fresh, faucet().address, TRX));
    assert.equal(reply.code, 'CONTRACT_VALIDATE_ERROR');
    assert.equal(hexMessage(reply.message), 'Contract validate error : Validate TransferContract error, balance is not sufficient.');
    await waitFor('solidified set balance', async () => BigInt(await tw.trx.getBalance(fresh.address)) === 0n && (await headNumber()) > 0);
    await assert.rejects(devnet.setBalance(fresh.address, {}), /give balanceSun and\/or usdtUnits/);
  });

  test("USDT blacklist: isBlackListed answers as Tether's contract does, and a crash keeps the list", async () => {
    const frozen = await newAccount();
    const listed = async (address: string) => {
      const reply = await tw.transactionBuilder.triggerConstantContract(devnet.usdtContract, 'isBlackListed(address)', {}, [{ type: 'address', value: address }], address);
      return BigInt('0x' + (reply.constant_result?.[0] ?? ''));
    };
    assert.equal(await listed(frozen.address), 0n);
    await devnet.blacklist(frozen.address);
    assert.equal(await listed(frozen.address), 1n);
    const head = await headNumber();
    await waitFor('a block after the blacklisting', async () => (await headNumber()) > head);
    await devnet.restart({ crash: true });
    assert.equal(await listed(frozen.address), 1n, 'kept in the block log');
    await devnet.blacklist(frozen.address, false);
    assert.equal(await listed(frozen.address), 0n);
  });

  test('chain parameters: energy price and USDT energy factor change mid-run', async () => {
    const payer = await funded(100n, 10n);
    const to = await funded(1n, 1n);
    try {
      await devnet.setChainParameters({ energyFeeSun: 210n });
      const params = Object.fromEntries((await tw.trx.getChainParameters()).map((p) => [p.key, p.value]));
      assert.equal(params.getEnergyFee, 210);
      assert.match((await tw.trx.getEnergyPrices()) as string, /^0:100,\d+:210$/);
      const pricier = await info(await broadcast(await signedUsdt(payer, to.address, TRX)));
      assert.equal(pricier.receipt.energy_fee, 64_285 * 210);

      // Factor 0: USDT back to its base energy, 64,285 / 4.4.
      await devnet.setChainParameters({ energyFeeSun: 100n, usdtEnergyFactor: 0n });
      const estimate = await tw.transactionBuilder.estimateEnergy(devnet.usdtContract, 'transfer(address,uint256)', {}, [{ type: 'address', value: to.address }, { type: 'uint256', value: '1' }], payer.address);
      assert.equal(estimate.energy_required, 14_610);
      const cheaper = await info(await broadcast(await signedUsdt(payer, to.address, TRX)));
      assert.equal(cheaper.receipt.energy_usage_total, 14_610);
      assert.equal(cheaper.receipt.energy_fee, 1_461_000);
    } finally {
      await devnet.setChainParameters({ energyFeeSun: 100n, usdtEnergyFactor: 34_000n });
    }
    await assert.rejects(devnet.setChainParameters({ energyFeeSun: 0n }), /prices must be above 0/);
    const refused = await devnetControl<unknown>(devnet.url, 'POST', 'chain-parameters', { getEnergyFee: 5 }).catch((e: unknown) => String(e));
    assert.match(String(refused), /400/);
  });

  test('`npm run devnet -- fault ...` drives the same controls', async () => {
    const run = (args: string[]) =>
      new Promise<{ code: number | null; out: string }>((ok) => {
        const child = spawn('npm', ['run', '--silent', 'devnet', '--', 'fault', ...args], { cwd: ROOT, env: { ...process.env, DEVNET_URL: devnet.url }, stdio: ['ignore', 'pipe', 'pipe'] });
        let out = '';
        child.stdout.on('data', (d: Buffer) => (out += d.toString()));
        child.stderr.on('data', (d: Buffer) => (out += d.toString()));
        child.once('exit', (code) => ok({ code, out }));
      });
    const victim = await newAccount();
    const drop = await run(['drop', '--to', victim.address, '--count', '2']);
    assert.equal(drop.code, 0, drop.out);
    assert.equal(JSON.parse(drop.out).to, victim.address);
    const list = await run(['list']);
    assert.equal(JSON.parse(list.out).faults[0].count, 2);
    const set = await run(['set-balance', victim.address, '--usdt-units', '42']);
    assert.equal(set.code, 0, set.out);
    assert.equal(await usdtBalance(victim.address), 42n);
    const frozen = await run(['usdt-blacklist', victim.address]);
    assert.deepEqual(JSON.parse(frozen.out), { address: victim.address, frozen: true });
    const thawed = await run(['usdt-blacklist', victim.address, '--frozen', 'false']);
    assert.deepEqual(JSON.parse(thawed.out), { address: victim.address, frozen: false });
    const bad = await run(['delay', '--blocks', 'x']);
    assert.notEqual(bad.code, 0);
    assert.match(bad.out, /400.*blocks/);
    const hold = await run(['finality', '--held', 'true']);
    assert.equal(hold.code, 0, hold.out);
    assert.equal(JSON.parse(hold.out).held, true);
    assert.equal(JSON.parse((await run(['finality', '--held', 'false'])).out).held, false);
    const head = await headNumber();
    const solid = await run(['solidify']);
    assert.equal(solid.code, 0, solid.out);
    assert.ok(JSON.parse(solid.out).solidifiedBlock > head);
    assert.ok((await tw.trx.getConfirmedCurrentBlock()).block_header.raw_data.number >= JSON.parse(solid.out).solidifiedBlock);
    const clear = await run(['clear']);
    assert.deepEqual(JSON.parse(clear.out).faults, []);
  });
});
