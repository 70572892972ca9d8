import { hostname } from 'node:os';
import { randomBytes } from 'node:crypto';
import { amlProviderFrom } from '@/lib/aml';
import { probeAmlProvider } from '@/lib/aml/probe';
import { chain } from '@/lib/chain';
import { deriveAccount } from '@/lib/chain/keys';
import { chainConfig, config, workerConfig } from '@/lib/config';
import { db } from '@/lib/db/client';
import { bridgeConsole, createLogger } from '@/lib/log';
import { hdMnemonic, prepareAccounts } from '@/lib/merchants/accounts';
import { scanHeartbeat } from '@/lib/operations/heartbeat';
import type { WorkerContext } from '@/lib/payments/context';
import { expireInvoices } from '@/lib/payments/expiry';
import { processPayments } from '@/lib/payments/process';
import { processPayouts } from '@/lib/payouts/run';
import { scanNextBlocks } from '@/lib/payments/scan';
import { rateSource } from '@/lib/rates';
import { closeInterruptedDeliveries, deliverNext } from '@/lib/webhooks/deliver';
import { startLoop } from './loop';

const WEBHOOK_SENDERS = 4;

const c = config();
// JSON lines (docs/operations.md); console output of lib/ goes through it too.
bridgeConsole(createLogger('worker', c.LOG_LEVEL));
const settings = workerConfig();
// The worker signs, so it holds the mnemonic (the web does not: lib/merchants/accounts.ts).
const mnemonic = hdMnemonic();
const ctx: WorkerContext = {
  prisma: db(),
  chain: chain(),
  settings,
  aml: amlProviderFrom(settings),
  rates: rateSource(),
  owner: `${hostname()}:${process.pid}:${randomBytes(3).toString('hex')}`,
  gasWallet: deriveAccount(mnemonic, 0, 'gas'),
  forwardingFeePercent: c.FORWARDING_FEE_PERCENT,
  topupFeePercent: c.TOPUP_FEE_PERCENT,
};
// With the HTTP provider, its credentials are proven before anything is claimed (issue 13, case 10; docs/worker.md, "AML").
if (settings.AML_PROVIDER === 'http') {
  const verdict = await probeAmlProvider(ctx.aml, ctx.gasWallet.address);
  if (!verdict.start) {
    console.error(`ALERT worker not started: the AML provider refused our credentials or configuration (AML_HTTP_URL, AML_ACCESS_ID, AML_ACCESS_KEY): ${verdict.error}`);
    await ctx.prisma.$disconnect();
    process.exit(1);
  }
  if ('alert' in verdict) console.error(`ALERT AML provider could not be checked at start-up (starting; checks fail open on timeouts and 5xx): ${verdict.alert}`);
  else console.log('worker: AML provider accepted our credentials');
}
const delivery = { timeoutMs: settings.WEBHOOK_TIMEOUT_MS, allowPrivate: settings.WEBHOOK_ALLOW_PRIVATE };
const poll = settings.WORKER_POLL_MS;
const beat = scanHeartbeat(ctx.prisma, ctx.owner);

const loops = [
  startLoop('scan', poll, async () => {
    const scanned = await scanNextBlocks(ctx);
    await beat(); // read by /healthz: this worker is scanning
    return scanned > 0;
  }),
  startLoop('payments', poll, async () => (await processPayments(ctx)) > 0),
  startLoop('payouts', poll, async () => (await processPayouts(ctx)) > 0),
  startLoop('expiry', poll, async () => {
    await expireInvoices(ctx.prisma);
    await closeInterruptedDeliveries(ctx.prisma, settings.WEBHOOK_STALE_SECONDS);
    return false;
  }),
  // Account xpubs for sign-ups (and merchants from before migration 0041), kept ahead.
  startLoop('accounts', 60_000, async () => {
    await prepareAccounts(ctx.prisma, mnemonic);
    return false;
  }),
  ...Array.from({ length: WEBHOOK_SENDERS }, (_, i) => startLoop(`webhooks-${i}`, poll, () => deliverNext(ctx.prisma, delivery))),
];
console.log(`worker: running as ${ctx.owner}; node ${chainConfig().fullNodeUrl}; gas wallet ${ctx.gasWallet.address}`);

async function shutdown(): Promise<void> {
  await Promise.all(loops.map((l) => l.stop()));
  await ctx.prisma.$disconnect();
  process.exit(0);
}
process.once('SIGINT', () => void shutdown());
process.once('SIGTERM', () => void shutdown());
