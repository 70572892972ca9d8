import { randomBytes } from 'node:crypto';
import { createChain } from '@/lib/chain';
import { createPrisma } from '@/lib/db/client';
import { TEST_MNEMONIC } from '../test/helpers/app';
import { createTestDatabase } from '../test/helpers/db';
import { startDevnetProcess } from '../test/helpers/devnet';

/**
 * What every benchmark runs on: a fresh database on TEST_DATABASE_URL, a devnet
 * process with blocks every `blockMs`, and the settings the worker needs. This
 * process shares them, so it can seed through lib/.
 */
export async function startBenchStack(blockMs: number, solidifiedDepth: number) {
  const database = await createTestDatabase();
  const env = { DATABASE_URL: database.url, MASTER_KEY: randomBytes(32).toString('hex'), HD_MNEMONIC: TEST_MNEMONIC, RATES_PROVIDER: 'fixed' };
  Object.assign(process.env, env);
  const prisma = createPrisma(database.url);
  const devnet = await startDevnetProcess({ blockMs, solidifiedDepth });
  const chain = createChain({ fullNodeUrl: devnet.url, apiKey: null, usdtContract: devnet.usdtContract, txExpirationMs: 60_000 });
  /** Pays from the devnet faucet. */
  const pay = (address: string, amount: string, currency: 'TRX' | 'USDT' = 'TRX') =>
    fetch(`${devnet.url}/devnet/pay`, { method: 'POST', body: JSON.stringify({ address, amount, currency }) });
  return {
    env,
    prisma,
    devnet,
    chain,
    pay,
    async stop() {
      await prisma.$disconnect();
      await devnet.stop();
      await database.drop();
    },
  };
}
