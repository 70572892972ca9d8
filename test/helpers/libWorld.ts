import { randomBytes } from 'node:crypto';
import { createChain, type Chain } from '@/lib/chain';
import { TronWeb } from 'tronweb';
import { deriveAccount } from '@/lib/chain/keys';
import { parseWorkerSettings } from '@/lib/config';
import { createPrisma, type PrismaClient } from '@/lib/db/client';
import type { Transaction } from '@/lib/generated/prisma/client';
import { parseScaled } from '@/lib/money/decimal';
import { TOKEN_DECIMALS, type Currency } from '@/lib/money/tokens';
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
 * A fresh database and a devnet of its own (100 ms blocks, final 3 deep unless `solidifiedDepth` says), the worker's default
 * settings and the test mnemonic's gas wallet funded with `gasTrx`. No worker runs: the test calls
 * lib/ itself, so what it counts (the node requests of this process) is what those calls asked.
 */
export async function startLibWorld(owner: string, options: { gasTrx: string; rates?: RateSource; solidifiedDepth?: number }): Promise<LibWorld> {
  const database = await createTestDatabase();
  const prisma = createPrisma(database.url);
  const devnet = await startDevnetProcess({ blockMs: 100, solidifiedDepth: options.solidifiedDepth ?? 3 });
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

/** A fresh address that is no account on the devnet yet. */
export const randomAddress = () => (TronWeb.createRandom() as unknown as { address: string }).address;

/**
 * A new merchant's invoice whose address holds `amount` of `currency` (paid on the devnet), with
 * the payment recorded final as the scanner records one, from `from` (a fresh address unless named).
 */
export async function finalPayment(world: LibWorld, currency: Currency, amount: string, from = randomAddress()): Promise<Transaction> {
  const { prisma, devnet } = world;
  const merchant = await prisma.merchant.create({ data: { email: `lib-${Date.now()}-${Math.random()}@example.com`, targetWalletAddress: randomAddress(), topupWalletAddress: randomAddress(), activationWalletAddress: randomAddress(), webhookSecretEnc: 'unused' } });
  const { address } = deriveAccount(TEST_MNEMONIC, merchant.id, 'invoice', 1);
  await devnet.pay(address, amount, currency);
  const units = parseScaled(amount, TOKEN_DECIMALS);
  const invoice = await prisma.invoice.create({
    data: { merchantId: merchant.id, type: 'SINGLE', currencies: [currency], address, addressIndex: 1, expiredAt: new Date(Date.now() + 3_600_000), amounts: { create: { currency, rateUsd: currency === 'USDT' ? '1' : '0.25', dueUnits: units, feeUnits: units / 100n } } },
  });
  const hash = randomBytes(32).toString('hex');
  return prisma.transaction.create({
    data: { merchantId: merchant.id, invoiceId: invoice.id, type: 'PAYMENT', trnHash: hash, chainRef: `${hash}:0`, fromAddress: from, toAddress: address, amountUnits: units, currency, solidified: true },
  });
}
