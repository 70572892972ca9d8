import { createChain, type Chain } from '@/lib/chain';
import { deriveAccount } from '@/lib/chain/keys';
import { parseWorkerSettings } from '@/lib/config';
import { createPrisma, type PrismaClient } from '@/lib/db/client';
import type { RateSource } from '@/lib/rates';
import type { WorkerContext } from '@/lib/worker/context';
import { TEST_MNEMONIC } from './app';
import { createTestDatabase } from './db';
import { startDevnetProcess, type DevnetProcess } from './devnet';

/** A worker's context in the test's own process, for lib/ driven round by round as the worker drives it. */
export interface LibWorld {
  prisma: PrismaClient;
  devnet: DevnetProcess;
  chain: Chain;
  ctx: WorkerContext;
  stop(): Promise<void>;
}

/**
 * A fresh database and a devnet of its own (100 ms blocks, final 3 deep), the worker's default
 * settings and the test mnemonic's gas wallet funded with `gasTrx`. No worker runs: the test calls
 * lib/ itself, so what it counts (the node requests of this process) is what those calls asked.
 */
export async function startLibWorld(owner: string, options: { gasTrx: string; rates?: RateSource }): Promise<LibWorld> {
  const database = await createTestDatabase();
  const prisma = createPrisma(database.url);
  const devnet = await startDevnetProcess({ blockMs: 100, solidifiedDepth: 3 });
  const chain = createChain({ fullNodeUrl: devnet.url, apiKey: null, usdtContract: devnet.usdtContract, txExpirationMs: 60_000 });
  const gasWallet = deriveAccount(TEST_MNEMONIC, 0, 'gas');
  await devnet.pay(gasWallet.address, options.gasTrx, 'TRX');
  const ctx: WorkerContext = {
    prisma,
    chain,
    settings: parseWorkerSettings({}),
    aml: null as never,
    rates: options.rates ?? (null as never),
    owner,
    gasWallet,
    forwardingFeePercent: '1',
    topupFeePercent: '1',
  };
  return {
    prisma,
    devnet,
    chain,
    ctx,
    async stop() {
      await prisma.$disconnect();
      await devnet.stop();
      await database.drop();
    },
  };
}
