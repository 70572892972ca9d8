import { payFromFaucet } from '@/lib/devnet/faucet';

// Enough for the energy pool the worker stakes on the devnet (ENERGY_POOL_AUTOSTAKE, scripts/run.ts) and for gas.
const FUND_TRX = '2000000';
/**
 * How long a devnet that is still running may take to answer. Its start (and, after a restart, the
 * replay of its block log) is slow on a busy machine: the wait ends early when the process exits.
 */
const READY_TIMEOUT_MS = 300_000;

/**
 * The worker pays USDT forwarding energy from the service gas wallet; on the
 * devnet the faucet fills it at start (on a real network an operator does).
 */
export async function fundGasWalletOnDevnet(devnetUrl: string, gasAddress: string, running: () => boolean): Promise<void> {
  const deadline = Date.now() + READY_TIMEOUT_MS;
  for (;;) {
    try {
      if ((await fetch(`${devnetUrl}/devnet/info`)).ok) break;
    } catch {
      /* not up yet */
    }
    // A devnet that exited is not waited for: the runner restarts it, and checks again then.
    if (!running()) throw new Error(`the devnet exited before it answered at ${devnetUrl}`);
    if (Date.now() > deadline) throw new Error(`devnet at ${devnetUrl} did not start`);
    await new Promise((r) => setTimeout(r, 200));
  }
  const account = (await (await fetch(`${devnetUrl}/wallet/getaccount`, { method: 'POST', body: JSON.stringify({ address: gasAddress, visible: true }) })).json()) as { balance?: number };
  if ((account.balance ?? 0) >= 10_000_000_000) return;
  await payFromFaucet(devnetUrl, { address: gasAddress, amount: FUND_TRX, currency: 'TRX' }).catch((err: unknown) => {
    throw new Error(`funding the gas wallet failed: ${(err as Error).message}`);
  });
  console.log(`devnet: funded the service gas wallet ${gasAddress} with ${FUND_TRX} TRX`);
}

/**
 * After the runner restarted the devnet (scripts/run.ts): the devnet has replayed its block log
 * from DEVNET_DATA_DIR (devnet/store.ts), so the chain, the gas wallet's TRX and the pool's stake
 * are as they were, less any transaction broadcast but not yet in a block (a sender rebuilds it
 * once it has expired). The gas wallet is funded again only if it is short (a new data directory).
 */
export async function afterDevnetRestart(devnetUrl: string, gasAddress: string, running: () => boolean): Promise<void> {
  await fundGasWalletOnDevnet(devnetUrl, gasAddress, running);
  const info = (await (await fetch(`${devnetUrl}/devnet/info`)).json()) as { headBlock: number };
  console.log(`devnet: back at block ${info.headBlock} (its chain replayed from its block log); the gas wallet checked`);
}
