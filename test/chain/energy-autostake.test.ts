import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { assertReconciled } from '../helpers/reconcile';
import { SettlementStack } from '../helpers/settlementStack';
import { startWorker } from '../helpers/worker';

// ENERGY_POOL_AUTOSTAKE (docs/energy.md), on the devnet with the real app and worker: decided per
// resource from the books, round after round until done. Before 2026-12-04 any pool operation
// ended it for good: a stake that died unsent was never made again, and a round cut short after
// its first stake (the project's CI: a pool staked once of twice, four minutes waited) never made
// the second.

const TRX = 1_000_000n;

describe('the autostake stakes what the pool lacks, per resource, until it lands', () => {
  const s = new SettlementStack();
  // Expiring in 10 s, a stake the node drops is proven dead soon; the retry waits 300 ms, then doubles.
  const env = { TRON_TX_EXPIRATION_MS: '10000', SEND_RETRY_BASE_MS: '300' };
  const stakes = (resource: 'ENERGY' | 'BANDWIDTH') => s.app.prisma.transaction.findMany({ where: { sendPurpose: 'POOL_STAKE', type: 'STAKE', resource }, orderBy: { id: 'asc' } });
  const frozen = async () => (await s.chain.getStake(s.gasWallet.address)).frozenSun;

  before(async () => {
    // Every broadcast from the gas wallet is dropped (answered, never included) from the worker's first round on.
    await s.start({ ...env, ENERGY_POOL_AUTOSTAKE: '0:30000' }, async () => {
      await s.pay(s.gasWallet.address, '400000', 'TRX');
      await s.devnet.fault.drop({ from: s.gasWallet.address });
    });
  });
  after(() => s.stop());

  test('a stake the node dropped, proven dead once expired, is staked again and lands once', async () => {
    await s.waitForPool('the bandwidth stake proven dead', async () => (await stakes('BANDWIDTH')).some((r) => r.sendState === 'FAILED'), 120_000);
    await s.devnet.fault.clear();
    const landed = await s.waitForPool('the bandwidth stake staked again and landed', async () => (await stakes('BANDWIDTH')).find((r) => r.sendState === 'CONFIRMED'), 120_000);
    const rows = await stakes('BANDWIDTH');
    assert.equal(rows.filter((r) => r.sendState === 'CONFIRMED').length, 1, `staked once: ${await s.poolOperationsSaid()}`);
    assert.ok(rows.slice(0, -1).every((r) => r.sendState === 'FAILED' && r.blockNumber === null && /expired/.test(r.error ?? '')), `every earlier attempt died unsent: ${await s.poolOperationsSaid()}`);
    assert.equal(rows.at(-1)!.id, landed.id, 'nothing was staked after the stake that landed');
    assert.equal((await frozen()).BANDWIDTH, 30_000n * TRX);
    // Configured at 0 TRX for energy: none staked.
    assert.deepEqual(await stakes('ENERGY'), []);
  });

  test('with the pool staked for bandwidth, energy configured later is staked, and bandwidth is not staked twice', async () => {
    // The same books as a round cut short after its first stake: one resource staked, the other not.
    await s.worker.stop();
    s.worker = startWorker(s.app.env, s.devnet, { AML_FLAGGED_ADDRESSES: s.flagged.address, ...env, ENERGY_POOL_AUTOSTAKE: '300000:30000' });
    await s.waitForPool('the energy stake landed', async () => (await stakes('ENERGY')).find((r) => r.sendState === 'CONFIRMED'), 120_000);
    assert.equal((await stakes('ENERGY')).length, 1, `energy staked once: ${await s.poolOperationsSaid()}`);
    assert.equal((await stakes('BANDWIDTH')).filter((r) => r.sendState !== 'FAILED').length, 1, `bandwidth not staked again: ${await s.poolOperationsSaid()}`);
    assert.deepEqual(await frozen(), { ENERGY: 300_000n * TRX, BANDWIDTH: 30_000n * TRX });
    await assertReconciled(s.app.prisma, s.chain, 120_000);
  });
});
