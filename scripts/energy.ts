/**
 * `npm run energy -- status | stake <TRX> [energy|bandwidth] | unstake <TRX> [energy|bandwidth] | withdraw`:
 * the energy pool (the gas wallet's Stake 2.0 stake; docs/energy.md). `status` prints what it has
 * staked, lent and can still lend, and the sends waiting for energy; `stake`/`unstake` sign and
 * store the transaction, broadcast it and follow it until it is final (the worker finishes it if
 * this stops first); `withdraw` returns unstaked TRX whose 14 days are over to the balance (the
 * worker also does it on its own). Without DATABASE_URL it acts on the local run (`npm run dev`) as it was left.
 */
import { runOperatorCommand } from './devEnv';

const [command = 'status', amount, resourceArg = 'energy'] = process.argv.slice(2);
const usage = 'usage: npm run energy -- status | stake <TRX> [energy|bandwidth] | unstake <TRX> [energy|bandwidth] | withdraw';
const takesAmount = command === 'stake' || command === 'unstake';
if (!['status', 'stake', 'unstake', 'withdraw'].includes(command) || (takesAmount && !/^\d+$/.test(amount ?? '')) || !['energy', 'bandwidth'].includes(resourceArg)) {
  console.error(usage);
  process.exit(2);
}

await runOperatorCommand(async (prisma) => {
  const { amlProviderFrom } = await import('@/lib/aml');
  const { chain } = await import('@/lib/chain');
  const { deriveAccount } = await import('@/lib/chain/keys');
  const { config, workerConfig } = await import('@/lib/config');
  const { hdMnemonic } = await import('@/lib/merchants/accounts');
  const { rateSource } = await import('@/lib/rates');
  const { changeStake, settleStake, withdrawExpired } = await import('@/lib/energy/operator');
  const { poolReport } = await import('@/lib/energy/report');
  const c = config();
  const settings = workerConfig();
  const ctx = {
    prisma,
    chain: chain(),
    settings,
    aml: amlProviderFrom(settings),
    rates: rateSource(),
    owner: `energy-cli:${process.pid}`,
    gasWallet: deriveAccount(hdMnemonic(), 0, 'gas'),
    forwardingFeePercent: c.FORWARDING_FEE_PERCENT,
    topupFeePercent: c.TOPUP_FEE_PERCENT,
  };
  if (command === 'status') {
    for (const line of await poolReport(ctx)) console.log(line);
    return 0;
  }
  const resource = resourceArg === 'energy' ? 'ENERGY' : 'BANDWIDTH';
  try {
    if (command === 'withdraw') {
      const row = await withdrawExpired(ctx);
      if (!row) {
        console.log('withdraw: no unstaked TRX has finished its 14 days yet; nothing to withdraw');
        return 0;
      }
      console.log(`withdraw of ${row.stakeSun} sun of expired unstaked TRX signed and stored as ${row.trnHash}; waiting until it is final`);
      const done = await settleStake(ctx, row);
      console.log(`withdraw of ${done.stakeSun} sun is final`);
      for (const line of await poolReport(ctx)) console.log(line);
      return 0;
    }
    const row = await changeStake(ctx, command as 'stake' | 'unstake', resource, BigInt(amount!) * 1_000_000n);
    console.log(`${command} of ${amount} TRX for ${resource} signed and stored as ${row.trnHash}; waiting until it is final`);
    await settleStake(ctx, row);
    console.log(`${command} of ${amount} TRX for ${resource} is final`);
    for (const line of await poolReport(ctx)) console.log(line);
    return 0;
  } catch (err) {
    console.error(`energy: ${(err as Error).message}`);
    return 1;
  }
});
