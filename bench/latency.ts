/**
 * How long a merchant waits to hear "paid and forwarded" (issue 24): SINGLE invoices paid by a
 * customer's wallet (tronweb, through lib/chain) at random moments, on a devnet with mainnet
 * timing (3 s blocks, solidified 19 deep), the real app and the real worker with the default
 * run's settings (its energy pool staked). For each payment it measures, from the timestamp of
 * the block that holds the payment:
 *   - until the COMPLETED webhook reaches the merchant's receiver, over the finality period
 *     (DEPTH x BLOCK_MS): `completed_over_finality{token=...,stat=p50|p95}`;
 *   - until the public payment page's status says the payment is seen (`confirming`):
 *     `seen_after_inclusion_s{stat=p95}`.
 * Run once with AML off (the lines as issue 24 names them) and once with AML on (the local stub
 * provider; the same lines labelled `aml=on`). Needs PostgreSQL at TEST_DATABASE_URL and a build.
 *   npm run bench:latency        (BENCH_PAYMENTS per token, default 20; BENCH_SPREAD_MS, default 60000)
 */
import { TronWeb } from 'tronweb';
import { createChain } from '@/lib/chain';
import { deriveAccount } from '@/lib/chain/keys';
import { linkKeyWith } from '@/lib/invoices/linkKey';
import { startApp, TEST_MNEMONIC } from '../test/helpers/app';
import { startDevnetProcess, waitFor } from '../test/helpers/devnet';
import { startWorker } from '../test/helpers/worker';
import { completedHooks } from './mainnetStack';

const PER_TOKEN = Number(process.env.BENCH_PAYMENTS ?? 20);
const BLOCK_MS = Number(process.env.BENCH_BLOCK_MS ?? 3000);
const DEPTH = Number(process.env.BENCH_SOLIDIFIED_DEPTH ?? 19);
const SPREAD_MS = Number(process.env.BENCH_SPREAD_MS ?? 60_000);
const MODES = (process.env.BENCH_AML ?? 'off,on').split(',');
const FINALITY_MS = DEPTH * BLOCK_MS;

type Token = 'TRX' | 'USDT';
interface Sample {
  token: Token;
  invoiceId: number;
  txid: string;
  includedAt: number;
  seenAt: number;
  completedAt: number;
}

const devnet = await startDevnetProcess({ blockMs: BLOCK_MS, solidifiedDepth: DEPTH });
const app = await startApp({ TRON_FULL_NODE_URL: devnet.url, TRON_USDT_CONTRACT: devnet.usdtContract });
const chain = createChain({ fullNodeUrl: devnet.url, apiKey: null, usdtContract: devnet.usdtContract, txExpirationMs: 60_000 });
const hooks = await completedHooks();

// The default run's worker: its poll interval and leases, an energy pool staked from the gas wallet.
const worker = startWorker(app.env, devnet, { WORKER_POLL_MS: '1000', LEASE_SECONDS: '60', ENERGY_POOL_AUTOSTAKE: '1500000:100000' });
const customer = TronWeb.createRandom() as unknown as { address: string; privateKey: string };
const lines: string[] = [];
try {
  await devnet.pay(deriveAccount(TEST_MNEMONIC, 0, 'gas').address, '2000000', 'TRX');
  await devnet.pay(customer.address, '1000000', 'TRX');
  await devnet.pay(customer.address, '1000000', 'USDT');
  await waitFor('the energy pool staked', async () => (await chain.getStake(deriveAccount(TEST_MNEMONIC, 0, 'gas').address)).frozenSun.ENERGY > 0n, 10 * FINALITY_MS);
  await waitFor('the customer funded', async () => (await chain.getUsdtBalance(customer.address)) > 0n, 10 * FINALITY_MS);

  for (const mode of MODES) {
    const samples = await runMode(mode === 'on');
    const label = mode === 'on' ? ',aml=on' : '';
    for (const token of ['TRX', 'USDT'] as const) {
      const ratios = samples.filter((s) => s.token === token).map((s) => (s.completedAt - s.includedAt) / FINALITY_MS);
      lines.push(`completed_over_finality{token=${token},stat=p50${label}}=${quantile(ratios, 0.5).toFixed(3)}`);
      lines.push(`completed_over_finality{token=${token},stat=p95${label}}=${quantile(ratios, 0.95).toFixed(3)}`);
    }
    lines.push(`seen_after_inclusion_s{stat=p95${label}}=${quantile(samples.map((s) => (s.seenAt - s.includedAt) / 1000), 0.95).toFixed(2)}`);
    if (process.env.BENCH_TIMELINE) await printTimeline(samples);
  }
  console.log(`# ${PER_TOKEN} TRX and ${PER_TOKEN} USDT SINGLE invoices per mode, paid at random moments over ${SPREAD_MS / 1000} s; blocks every ${BLOCK_MS} ms, final ${DEPTH} deep (${FINALITY_MS / 1000} s)`);
  for (const line of lines) console.log(line);
} finally {
  await worker.stop();
  hooks.close();
  await app.stop();
  await devnet.stop();
}

async function runMode(aml: boolean): Promise<Sample[]> {
  const target = (TronWeb.createRandom() as unknown as { address: string }).address;
  const { merchant, key } = await app.createMerchant({ targetWallet: target });
  await app.prisma.merchant.update({ where: { id: merchant.id }, data: { webhookUrl: hooks.url, amlCheck: aml, amlRiskLimit: '50' } });
  const plan: Array<{ token: Token; id: number; address: string; amount: string }> = [];
  for (const token of ['TRX', 'USDT'] as const) {
    for (let i = 0; i < PER_TOKEN; i++) {
      const res = await app.api('/payment/create', key, { method: 'POST', body: { type: 'SINGLE', amount: 10, currencies: [token], expiry_minutes: 60 } });
      if (res.status !== 200) throw new Error(`create: ${res.status} ${res.text}`);
      const invoice = res.json as { id: number; address: string; currencies_amounts: Record<string, number> };
      plan.push({ token, id: invoice.id, address: invoice.address, amount: String(invoice.currencies_amounts[token]) });
    }
  }
  const samples = await Promise.all(
    plan.map(async (p) => {
      await new Promise((r) => setTimeout(r, Math.random() * SPREAD_MS));
      return payAndWatch(p);
    }),
  );
  return samples;
}

/** Pays one invoice from the customer's wallet and follows it: inclusion, the page's "seen", the COMPLETED webhook. */
async function payAndWatch(p: { token: Token; id: number; address: string; amount: string }): Promise<Sample> {
  const units = BigInt(Math.round(Number(p.amount) * 1e6));
  const signed =
    p.token === 'TRX'
      ? await chain.buildSignedTrxTransfer(customer.privateKey, p.address, units)
      : await chain.buildSignedUsdtTransfer(customer.privateKey, p.address, units, 50_000_000n);
  await chain.broadcast(signed.signedTx);
  const statusUrl = `${app.baseUrl}/payment/${p.id}/status?k=${linkKeyWith(app.env.MASTER_KEY!, p.id)}`;
  let seenAt = 0;
  await waitFor(`invoice ${p.id} seen on its page`, async () => {
    const view = (await (await fetch(statusUrl)).json()) as { confirming?: boolean; status?: string };
    if (view.confirming || view.status !== 'ACTIVE') seenAt = Date.now();
    return seenAt > 0 ? true : (await new Promise((r) => setTimeout(r, 250)), false);
  }, 10 * FINALITY_MS);
  const included = await waitFor(`payment ${signed.txId} in a block`, async () => {
    const status = await chain.getTransactionStatus(signed.txId);
    return status.blockNumber === null ? null : status.blockNumber;
  }, 10 * FINALITY_MS);
  const block = (await (await fetch(`${devnet.url}/wallet/getblockbynum`, { method: 'POST', body: JSON.stringify({ num: included }) })).json()) as { block_header: { raw_data: { timestamp: number } } };
  await waitFor(`invoice ${p.id} COMPLETED webhook`, async () => hooks.at.has(p.id) || (await new Promise((r) => setTimeout(r, 250)), false), 20 * FINALITY_MS);
  return { token: p.token, invoiceId: p.id, txid: signed.txId, includedAt: block.block_header.raw_data.timestamp, seenAt, completedAt: hooks.at.get(p.id)! };
}

/** Where the time goes, per payment (BENCH_TIMELINE=1): seconds after the payment's block of each step the database recorded. */
async function printTimeline(samples: Sample[]): Promise<void> {
  for (const s of samples) {
    const payment = await app.prisma.transaction.findFirst({ where: { trnHash: s.txid, type: 'PAYMENT' } });
    const sends = payment ? await app.prisma.transaction.findMany({ where: { sourceId: payment.id }, orderBy: { id: 'asc' } }) : [];
    const at = (d: Date) => ((d.getTime() - s.includedAt) / 1000).toFixed(1);
    const steps = sends.map((r) => `${r.sendPurpose}#${r.sendAttempt} built ${at(r.createdAt)} ${r.sendState} ${at(r.updatedAt)}`).join('; ');
    console.log(`# ${s.token} invoice ${s.invoiceId}: recorded ${payment ? at(payment.createdAt) : '-'}, ${steps}; completed ${at(new Date(s.completedAt))}`);
  }
}

function quantile(xs: number[], q: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil(q * s.length) - 1))] ?? NaN;
}
