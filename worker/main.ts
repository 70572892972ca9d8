import { hostname } from 'node:os';
import { randomBytes } from 'node:crypto';
import { amlProviderFrom } from '@/lib/aml';
import { probeAmlProvider } from '@/lib/aml/probe';
import { chain } from '@/lib/chain';
import { deriveAccount } from '@/lib/chain/keys';
import { chainConfig, config, workerConfig } from '@/lib/config';
import { db } from '@/lib/db/client';
import { bridgeConsole, createLogger } from '@/lib/log';
import { hdMnemonic } from '@/lib/merchants/accounts';
import type { WorkerContext } from '@/lib/worker/context';
import { rateSource } from '@/lib/rates';
import type { JobDeps, WorkerJob } from '@/lib/worker/job';
import { startJob } from '@/lib/worker/loop';
import { workerWakeup } from '@/lib/worker/wake';
import { accountsJob } from './accounts';
import { energyJob } from './energy';
import { expiryJob } from './expiry';
import { gasReturnsJob } from './gasReturns';
import { headScanJob } from './headScan';
import { mailJob } from './mail';
import { paymentsJobs } from './payments';
import { payoutsJob } from './payouts';
import { refundsJob } from './refunds';
import { scanJob } from './scan';
import { webhookJobs } from './webhooks';

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
// Every background job is a file under worker/ (docs/worker.md, "Jobs").
const deps: JobDeps = { ctx, mnemonic };
const jobs: WorkerJob[] = [scanJob(deps), ...(settings.FORWARD_BEFORE_FINALITY ? [headScanJob(deps)] : []), ...paymentsJobs(deps), gasReturnsJob(deps), payoutsJob(deps), refundsJob(deps), expiryJob(deps), accountsJob(deps), energyJob(deps), mailJob(deps), ...webhookJobs(deps)];
// A singleton job ((the scanner, the energy pool's upkeep) runs on one worker at a time (lib/worker/leader.ts).
const loops = jobs.map((job) => startJob(ctx, job));
console.log(`worker: running as ${ctx.owner}; node ${chainConfig().fullNodeUrl}; gas wallet ${ctx.gasWallet.address}`);

async function shutdown(): Promise<void> {
  await Promise.all(loops.map((l) => l.stop()));
  workerWakeup().stop();
  await ctx.prisma.$disconnect();
  process.exit(0);
}
process.once('SIGINT', () => void shutdown());
process.once('SIGTERM', () => void shutdown());
