import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { TronWeb } from 'tronweb';
import { startDevnetProcess, waitFor, type DevnetProcess } from '../helpers/devnet';
import { hexMessage, newAccount, receipt, usdtTransferTx, type Account } from '../helpers/tronweb';

// Stake 2.0 on the devnet, driven the way a wallet drives it: tronweb's
// transactionBuilder builds freeze/delegate transactions locally, the node
// validates them at broadcast with java-tron's messages.

let devnet: DevnetProcess;
let tw: TronWeb;

const TRX = 1_000_000n;
type Resource = 'ENERGY' | 'BANDWIDTH';


const faucet = (): Account => ({ address: devnet.faucetAddress, privateKey: devnet.faucetPrivateKey });
const hex = (address: string) => TronWeb.address.toHex(address).toLowerCase();

const info = (txId: string) => receipt(tw, txId);

async function send(tx: Parameters<TronWeb['trx']['sign']>[0], key: string) {
  const signed = await tw.trx.sign(tx, key);
  return tw.trx.sendRawTransaction(signed as Parameters<TronWeb['trx']['sendRawTransaction']>[0]);
}

/** Broadcasts and waits for the receipt; fails the test on a refusal. */
async function included(tx: Parameters<TronWeb['trx']['sign']>[0], key: string) {
  const reply = await send(tx, key);
  assert.equal(reply.result, true, `refused: ${reply.code} ${hexMessage(reply.message)}`);
  return info(reply.txid ?? (reply as { transaction: { txID: string } }).transaction.txID);
}

async function refused(tx: Parameters<TronWeb['trx']['sign']>[0], key: string): Promise<{ code: string; message: string }> {
  const reply = await send(tx, key);
  assert.notEqual(reply.result, true, 'the node accepted it');
  return { code: String(reply.code), message: hexMessage(reply.message) };
}

const sendTrx = async (from: Account, to: string, sun: bigint) => included(await tw.transactionBuilder.sendTrx(to, Number(sun), from.address), from.privateKey);
const freeze = async (who: Account, sun: bigint, resource: Resource) => tw.transactionBuilder.freezeBalanceV2(Number(sun), resource, who.address);
const unfreeze = async (who: Account, sun: bigint, resource: Resource) => tw.transactionBuilder.unfreezeBalanceV2(Number(sun), resource, who.address);
const delegate = async (who: Account, sun: bigint, to: string, resource: Resource, lock = false, lockPeriod?: number) =>
  tw.transactionBuilder.delegateResource(Number(sun), to, resource, who.address, lock, lockPeriod);
const undelegate = async (who: Account, sun: bigint, to: string, resource: Resource) => tw.transactionBuilder.undelegateResource(Number(sun), to, resource, who.address);

async function sendUsdt(from: Account, to: string, units: bigint, feeLimit = 100_000_000) {
  const transaction = await usdtTransferTx(tw, devnet.usdtContract, from.address, to, units, feeLimit);
  return included(transaction, from.privateKey);
}

async function funded(trx: bigint, usdt = 0n): Promise<Account> {
  const a = await newAccount();
  await sendTrx(faucet(), a.address, trx * TRX);
  if (usdt > 0n) await sendUsdt(faucet(), a.address, usdt * TRX);
  return a;
}

const balance = async (address: string) => BigInt(await tw.trx.getUnconfirmedBalance(address));
const resources = async (address: string) => (await tw.trx.getAccountResources(address)) as unknown as Record<string, number | undefined>;

before(async () => {
  devnet = await startDevnetProcess();
  tw = new TronWeb({ fullHost: devnet.url });
});

after(async () => {
  await devnet?.stop();
});

describe('Stake 2.0 on the devnet', () => {
  test('staking TRX for energy gives the stake share of the network total energy, shown by getaccount and getaccountresource', async () => {
    const staker = await funded(10_100n);
    const before = await balance(staker.address);
    const receipt = await included(await freeze(staker, 10_000n * TRX, 'ENERGY'), staker.privateKey);
    assert.equal(receipt.receipt.net_fee, undefined, 'bandwidth from the free 600');
    assert.equal(await balance(staker.address), before - 10_000n * TRX);

    const account = await tw.trx.getUnconfirmedAccount(staker.address);
    const frozen = (account as unknown as { frozenV2: Array<{ type?: string; amount?: number }> }).frozenV2;
    assert.deepEqual(frozen, [{}, { type: 'ENERGY', amount: 10_000_000_000 }, { type: 'TRON_POWER' }]);

    const r = await resources(staker.address);
    assert.equal(r.TotalEnergyLimit, 180_000_000_000);
    assert.ok(r.TotalEnergyWeight! >= 19_000_010_000, `TotalEnergyWeight ${r.TotalEnergyWeight} counts mainnet's stake and this one`);
    assert.equal(r.EnergyLimit, Math.floor((10_000 * 180_000_000_000) / r.TotalEnergyWeight!));
    // About 9.5 energy per staked TRX per day, as on mainnet.
    assert.ok(r.EnergyLimit! > 90_000 && r.EnergyLimit! < 100_000, `EnergyLimit ${r.EnergyLimit}`);
    assert.equal(r.EnergyUsed, undefined);
  });

  test('a USDT transfer paid by delegated energy burns no TRX; the same transfer without delegation burns 64,285 x 100 sun', async () => {
    const staker = await funded(30_100n);
    await included(await freeze(staker, 30_000n * TRX, 'ENERGY'), staker.privateKey);
    const holder = await funded(2n, 1n);
    const delegated = await funded(10n, 100n);
    const plain = await funded(10n, 100n);

    await included(await delegate(staker, 10_000n * TRX, delegated.address, 'ENERGY'), staker.privateKey);
    const r = await resources(delegated.address);
    assert.ok(r.EnergyLimit! > 64_285, `delegated EnergyLimit ${r.EnergyLimit} covers one USDT transfer`);

    const before = await balance(delegated.address);
    const paid = await sendUsdt(delegated, holder.address, 5n * TRX);
    assert.equal(paid.receipt.result, 'SUCCESS');
    assert.equal(paid.receipt.energy_usage, 64_285, 'all of it from the delegated stake');
    assert.equal(paid.receipt.energy_usage_total, 64_285);
    assert.equal(paid.receipt.energy_fee, undefined, 'no TRX burned for energy');
    assert.equal(paid.fee, undefined, 'bandwidth from the free 600, energy from the stake: nothing burned');
    assert.equal(await balance(delegated.address), before);
    const after = await resources(delegated.address);
    assert.ok(after.EnergyUsed! >= 64_280 && after.EnergyUsed! <= 64_285, `EnergyUsed ${after.EnergyUsed}`);

    const plainBefore = await balance(plain.address);
    const burned = await sendUsdt(plain, holder.address, 5n * TRX);
    assert.equal(burned.receipt.result, 'SUCCESS');
    assert.equal(burned.receipt.energy_usage, undefined);
    assert.equal(burned.receipt.energy_usage_total, 64_285);
    assert.equal(burned.receipt.energy_fee, 6_428_500);
    assert.equal(await balance(plain.address), plainBefore - 6_428_500n);
  });

  test('used energy regenerates linearly over 24 hours', async () => {
    const staker = await funded(20_100n);
    await included(await freeze(staker, 20_000n * TRX, 'ENERGY'), staker.privateKey);
    const holder = await funded(2n, 1n);
    await sendUsdt(faucet(), staker.address, 10n * TRX);
    const used = await sendUsdt(staker, holder.address, TRX);
    assert.equal(used.receipt.energy_usage, 64_285);
    const account = (await tw.trx.getUnconfirmedAccount(staker.address)) as unknown as { account_resource: { energy_usage: number; latest_consume_time_for_energy: number } };
    assert.equal(account.account_resource.energy_usage, 64_285);
    const since = account.account_resource.latest_consume_time_for_energy;
    // Wait until the head is 3 s past the use, then read usage and head time with no block in between.
    const reading = await waitFor('a head block 3 s after the use, read twice alike', async () => {
      const head1 = (await tw.trx.getCurrentBlock()).block_header.raw_data.timestamp;
      const r = await resources(staker.address);
      const head2 = (await tw.trx.getCurrentBlock()).block_header.raw_data.timestamp;
      return head1 === head2 && head1 - since >= 3_000 ? { elapsed: head1 - since, used: r.EnergyUsed! } : undefined;
    });
    const window = 86_400_000;
    assert.equal(reading.used, Math.floor((64_285 * (window - reading.elapsed)) / window));
    assert.ok(reading.used < 64_285);
  });

  test('bandwidth: staked (here delegated) first, also for creating an account, then the free 600, then burned', async () => {
    const staker = await funded(800n);
    const spender = await funded(100n);
    const live = await resources(spender.address);
    // Stake for about 1.5 TRX transfers of bandwidth at the live network weight.
    const stakeTrx = BigInt(Math.ceil((400 * live.TotalNetWeight!) / live.TotalNetLimit!));
    // The delegation's own bytes come out of the staker's fresh stake (staked bandwidth is used first),
    // and stake that usage occupies cannot be delegated: stake 300 TRX more than is lent.
    await included(await freeze(staker, (stakeTrx + 300n) * TRX, 'BANDWIDTH'), staker.privateKey);
    await included(await delegate(staker, stakeTrx * TRX, spender.address, 'BANDWIDTH'), staker.privateKey);
    const start = await resources(spender.address);
    assert.ok(start.NetLimit! >= 390 && start.NetLimit! < 420, `NetLimit ${start.NetLimit}`);
    assert.equal(start.freeNetUsed, undefined);

    // 1. To a new address: the create-account fee is replaced by staked bandwidth; only the 1 TRX system fee is paid.
    const created = await sendTrx(spender, (await newAccount()).address, TRX);
    assert.equal(created.fee, 1_000_000);
    assert.equal(created.receipt.net_fee, undefined);
    const bytes = created.receipt.net_usage!;
    assert.ok(bytes > 250 && bytes < 300, `net_usage ${bytes}`);
    let r = await resources(spender.address);
    assert.ok(r.NetUsed! >= bytes - 1 && r.NetUsed! <= bytes, `NetUsed ${r.NetUsed}`);
    assert.equal(r.freeNetUsed, undefined);

    // 2. and 3. Staked bandwidth left is below one transfer: the free 600 pays two.
    const other = await funded(1n);
    let freeBytes = 0;
    for (const n of [1, 2]) {
      const t = await sendTrx(spender, other.address, TRX);
      assert.equal(t.fee, undefined, `transfer ${n} free`);
      freeBytes += t.receipt.net_usage!;
      r = await resources(spender.address);
      // Less a byte or two that already recovered.
      assert.ok(r.freeNetUsed! <= freeBytes && r.freeNetUsed! >= freeBytes - 2, `freeNetUsed ${r.freeNetUsed} after ${n} (${freeBytes} bytes)`);
    }
    // 4. Nothing left: burned at 1,000 sun per byte.
    const burned = await sendTrx(spender, other.address, TRX);
    assert.equal(burned.receipt.net_usage, undefined);
    assert.ok(burned.receipt.net_fee! >= (bytes - 2) * 1000 && burned.receipt.net_fee! <= (bytes + 2) * 1000, `net_fee ${burned.receipt.net_fee}`);
    assert.equal(burned.fee, burned.receipt.net_fee);
  });

  test('delegation reads: getdelegatedresourcev2, getdelegatedresourceaccountindexv2, getcandelegatedmaxsize', async () => {
    const staker = await funded(3_100n);
    const receiver = await funded(1n);
    await included(await freeze(staker, 3_000n * TRX, 'ENERGY'), staker.privateKey);
    await included(await delegate(staker, 1_000n * TRX, receiver.address, 'ENERGY'), staker.privateKey);
    await included(await delegate(staker, 500n * TRX, receiver.address, 'ENERGY', true, 100), staker.privateKey);
    const unconfirmed = { confirmed: false };

    const delegations = (await tw.trx.getDelegatedResourceV2(staker.address, receiver.address, unconfirmed)) as unknown as {
      delegatedResource: Array<Record<string, unknown>>;
    };
    assert.equal(delegations.delegatedResource.length, 2);
    assert.deepEqual(delegations.delegatedResource[0], { from: hex(staker.address), to: hex(receiver.address), frozen_balance_for_energy: 1_000_000_000 });
    assert.equal(delegations.delegatedResource[1]!.frozen_balance_for_energy, 500_000_000);
    assert.ok(Number(delegations.delegatedResource[1]!.expire_time_for_energy) > Date.now() + 250_000, 'locked 100 x 3 s');

    assert.deepEqual(await tw.trx.getDelegatedResourceAccountIndexV2(staker.address, unconfirmed), { account: hex(staker.address), toAccounts: [hex(receiver.address)] });
    assert.deepEqual(await tw.trx.getDelegatedResourceAccountIndexV2(receiver.address, unconfirmed), { account: hex(receiver.address), fromAccounts: [hex(staker.address)] });

    const max = (await tw.trx.getCanDelegatedMaxSize(staker.address, 'ENERGY', unconfirmed)) as { max_size?: number };
    assert.equal(max.max_size, 1_500_000_000);
    const account = (await tw.trx.getUnconfirmedAccount(staker.address)) as unknown as { account_resource: Record<string, number> };
    assert.equal(account.account_resource.delegated_frozenV2_balance_for_energy, 1_500_000_000);
    const got = (await tw.trx.getUnconfirmedAccount(receiver.address)) as unknown as { account_resource: Record<string, number> };
    assert.equal(got.account_resource.acquired_delegated_frozenV2_balance_for_energy, 1_500_000_000);

    // Solidified reads see the same once the block is solid.
    await waitFor('solidified delegation', async () => {
      const solid = (await tw.trx.getDelegatedResourceV2(staker.address, receiver.address)) as { delegatedResource?: unknown[] };
      return solid.delegatedResource?.length === 2;
    });
  });

  test('the refusals mainnet gives, in its error shape', async () => {
    const staker = await funded(2_100n);
    const receiver = await funded(1n);
    const stranger = await funded(1n);
    await included(await freeze(staker, 1_000n * TRX, 'ENERGY'), staker.privateKey);

    const more = await refused(await delegate(staker, 1_001n * TRX, receiver.address, 'ENERGY'), staker.privateKey);
    assert.deepEqual(more, { code: 'CONTRACT_VALIDATE_ERROR', message: 'Contract validate error : delegateBalance must be less than available FreezeEnergyV2 balance' });

    const noBandwidth = await refused(await delegate(staker, 10n * TRX, receiver.address, 'BANDWIDTH'), staker.privateKey);
    assert.equal(noBandwidth.message, 'Contract validate error : delegateBalance must be less than available FreezeBandwidthV2 balance');

    const tooLittle = await refused(await delegate(staker, TRX - 1n, receiver.address, 'ENERGY'), staker.privateKey);
    assert.equal(tooLittle.message, 'Contract validate error : delegateBalance must be more than 1TRX');

    const inactive = await newAccount();
    const toInactive = await refused(await delegate(staker, 10n * TRX, inactive.address, 'ENERGY'), staker.privateKey);
    assert.deepEqual(toInactive, { code: 'CONTRACT_VALIDATE_ERROR', message: `Contract validate error : Account[${hex(inactive.address)}] not exists` });

    const notDelegated = await refused(await undelegate(staker, 10n * TRX, stranger.address, 'ENERGY'), staker.privateKey);
    assert.deepEqual(notDelegated, { code: 'CONTRACT_VALIDATE_ERROR', message: 'Contract validate error : delegated Resource does not exist' });

    await included(await delegate(staker, 100n * TRX, receiver.address, 'ENERGY'), staker.privateKey);
    const overUndelegate = await refused(await undelegate(staker, 101n * TRX, receiver.address, 'ENERGY'), staker.privateKey);
    assert.equal(overUndelegate.message, 'Contract validate error : insufficient delegateFrozenBalance(Energy), request=101000000, unlock_balance=100000000');

    const overUnfreeze = await refused(await unfreeze(staker, 901n * TRX, 'ENERGY'), staker.privateKey);
    assert.deepEqual(overUnfreeze, { code: 'CONTRACT_VALIDATE_ERROR', message: 'Contract validate error : Invalid unfreeze_balance, [901000000] is error' });

    const noneFrozen = await refused(await unfreeze(staker, TRX, 'BANDWIDTH'), staker.privateKey);
    assert.equal(noneFrozen.message, 'Contract validate error : no frozenBalance(BANDWIDTH)');

    const overFreeze = await refused(await freeze(staker, 2_000n * TRX, 'ENERGY'), staker.privateKey);
    assert.equal(overFreeze.message, 'Contract validate error : frozenBalance must be less than accountBalance');

    // Undelegating what was delegated works and gives the stake back.
    await included(await undelegate(staker, 100n * TRX, receiver.address, 'ENERGY'), staker.privateKey);
    const max = (await tw.trx.getCanDelegatedMaxSize(staker.address, 'ENERGY', { confirmed: false })) as { max_size?: number };
    assert.equal(max.max_size, 1_000_000_000);
    assert.equal((await resources(receiver.address)).EnergyLimit, undefined);
  });

  test('a locked delegation cannot be taken back before its lock ends, and can after', async () => {
    const staker = await funded(1_100n);
    const receiver = await funded(1n);
    await included(await freeze(staker, 1_000n * TRX, 'ENERGY'), staker.privateKey);
    // lock_period counts 3-second blocks, as on mainnet: 1 -> 3 s.
    await included(await delegate(staker, 100n * TRX, receiver.address, 'ENERGY', true, 1), staker.privateKey);
    const early = await refused(await undelegate(staker, 100n * TRX, receiver.address, 'ENERGY'), staker.privateKey);
    assert.equal(early.message, 'Contract validate error : insufficient delegateFrozenBalance(Energy), request=100000000, unlock_balance=0');
    await new Promise((r) => setTimeout(r, 3_200));
    await included(await undelegate(staker, 100n * TRX, receiver.address, 'ENERGY'), staker.privateKey);
    assert.deepEqual(await tw.trx.getDelegatedResourceV2(staker.address, receiver.address, { confirmed: false }), {});
  });

  test('unstaking starts the 14-day wait; nothing can be withdrawn before it ends', async () => {
    const staker = await funded(1_100n);
    await included(await freeze(staker, 1_000n * TRX, 'ENERGY'), staker.privateKey);
    const before = await balance(staker.address);
    const receipt = await included(await unfreeze(staker, 400n * TRX, 'ENERGY'), staker.privateKey);
    const account = (await tw.trx.getUnconfirmedAccount(staker.address)) as unknown as {
      frozenV2: Array<{ type?: string; amount?: number }>;
      unfrozenV2: Array<{ type?: string; unfreeze_amount: number; unfreeze_expire_time: number }>;
    };
    assert.equal(account.frozenV2[1]!.amount, 600_000_000);
    assert.equal(account.unfrozenV2.length, 1);
    assert.equal(account.unfrozenV2[0]!.type, 'ENERGY');
    assert.equal(account.unfrozenV2[0]!.unfreeze_amount, 400_000_000);
    // 14 days from the head block the unstake executed against (the block before its own).
    const expire = account.unfrozenV2[0]!.unfreeze_expire_time - 14 * 86_400_000;
    assert.ok(expire <= receipt.blockTimeStamp && expire > receipt.blockTimeStamp - 5_000, `expiry ${account.unfrozenV2[0]!.unfreeze_expire_time}`);
    assert.equal(await balance(staker.address), before, 'the TRX stays locked');
    assert.deepEqual(await tw.trx.getAvailableUnfreezeCount(staker.address, { confirmed: false }), { count: 31 });
    const withdraw = await refused(await tw.transactionBuilder.withdrawExpireUnfreeze(staker.address), staker.privateKey);
    assert.equal(withdraw.message, 'Contract validate error : no unFreeze balance to withdraw ');
  });
});
