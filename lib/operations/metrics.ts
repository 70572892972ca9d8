import { Counter, Gauge, Registry } from 'prom-client';
import { z } from 'zod';
import { nodeRequestCounts } from '@/lib/chain/meter';
import type { Chain } from '@/lib/chain/types';
import { SOLIDIFIED_CURSOR } from '@/lib/db/chainCursors';
import type { PrismaClient } from '@/lib/generated/prisma/client';
import { DeliveryStatus, InvoiceStatus, PaymentState, SendState } from '@/lib/generated/prisma/enums';
import { lastScanAt } from './heartbeat';
import { PROCESS_KINDS, restartCounts } from './restarts';
import { cell } from '@/lib/singletons';

export interface MetricsDeps {
  prisma: PrismaClient;
  chain: Chain;
  /** The service gas wallet (pays energy and activations). */
  gasWallet: string;
  now?: () => number;
}

export interface ChainFacts {
  confirmedBlock: number;
  gasBalanceSun: bigint;
  energyAvailable: bigint;
  bandwidthAvailable: bigint;
}

/** A worker whose heartbeat is older than this is gone: its node requests are no longer shown. */
const LIVE_WORKER_MS = 10 * 60_000;
/** What a heartbeat holds of its worker's node requests (lib/operations/heartbeat.ts). */
const nodeRequestsJson = z.object({ requests: z.record(z.string(), z.number().int().nonnegative()), throttled: z.number().int().nonnegative() });

/** Chain reads are cached this long: a scrape every few seconds must not become node traffic. */
const CHAIN_CACHE_MS = 15_000;
/** A node that does not answer in time counts as down for this scrape. */
const CHAIN_TIMEOUT_MS = 5_000;


async function chainFacts(chain: Chain, gasWallet: string, now: number): Promise<ChainFacts | null> {
  const cache = cell('metricsChainFacts');
  if (cache.value && now - cache.value.at < CHAIN_CACHE_MS) return cache.value.facts;
  let timer: NodeJS.Timeout | undefined;
  const read = async (): Promise<ChainFacts> => {
    const [confirmedBlock, gasBalanceSun, r] = await Promise.all([chain.getConfirmedBlockNumber(), chain.getTrxBalance(gasWallet), chain.getAccountResources(gasWallet)]);
    const free = r.freeBandwidthLimit - r.freeBandwidthUsed;
    const staked = r.stakedBandwidthLimit - r.stakedBandwidthUsed;
    return { confirmedBlock, gasBalanceSun, energyAvailable: r.energyLimit - r.energyUsed, bandwidthAvailable: (free > 0n ? free : 0n) + (staked > 0n ? staked : 0n) };
  };
  let facts: ChainFacts | null;
  try {
    facts = await Promise.race([read(), new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error('timeout')), CHAIN_TIMEOUT_MS)))]);
  } catch {
    facts = null;
  } finally {
    clearTimeout(timer);
  }
  cache.value = { at: now, facts };
  return facts;
}

/** Counts by a column, with a zero for every value of its enum (so a new state shows up at 0, not missing). */
function byValue<V extends string>(values: readonly V[], rows: { key: V | null; count: number }[]): [V, number][] {
  return values.map((v) => [v, rows.find((r) => r.key === v)?.count ?? 0]);
}

/**
 * The Prometheus exposition of /metrics, computed at each scrape from the
 * database (shared by web and worker, so it is right whichever process serves
 * it and whichever worker did the work) and from the chain (cached briefly).
 */
export async function renderMetrics(deps: MetricsDeps): Promise<{ contentType: string; body: string }> {
  const { prisma } = deps;
  const now = (deps.now ?? Date.now)();
  const registry = new Registry();
  const gauge = (name: string, help: string, labelNames: string[] = []) => new Gauge({ name, help, labelNames, registers: [registry] });

  const dayStart = new Date(now - (now % 86_400_000));
  const [cursor, lastScan, payments, sends, invoices, deliveries, facts, energy, waiting, burnedToday, rentedToday, rentedTotal, workers] = await Promise.all([
    prisma.chainCursor.findUnique({ where: { name: SOLIDIFIED_CURSOR }, select: { blockNumber: true } }),
    lastScanAt(prisma),
    prisma.transaction.groupBy({ by: ['paymentState'], where: { paymentState: { not: null } }, _count: { _all: true } }),
    prisma.transaction.groupBy({ by: ['sendState'], where: { sendState: { not: null } }, _count: { _all: true } }),
    prisma.invoice.groupBy({ by: ['status'], _count: { _all: true } }),
    prisma.webhookDelivery.groupBy({ by: ['status'], _count: { _all: true } }),
    chainFacts(deps.chain, deps.gasWallet, now),
    prisma.energyStatus.findUnique({ where: { id: 1 } }),
    prisma.transaction.count({ where: { type: { in: ['PAYMENT', 'TOPUP'] }, waitingReason: { startsWith: 'waiting for' } } }),
    prisma.transaction.aggregate({ where: { sendState: { in: ['CONFIRMED', 'FAILED'] }, updatedAt: { gte: dayStart } }, _sum: { feeSun: true } }),
    prisma.energyRental.aggregate({ where: { priceSun: { not: null }, orderedAt: { gte: dayStart } }, _sum: { priceSun: true } }),
    prisma.energyRental.aggregate({ where: { priceSun: { not: null } }, _sum: { priceSun: true } }),
    prisma.workerHeartbeat.findMany({ where: { scannedAt: { gte: new Date(now - LIVE_WORKER_MS) } }, select: { owner: true, nodeRequests: true }, orderBy: { owner: 'asc' } }),
  ]);

  const paymentGauge = gauge('invoicing_payments', 'Incoming payments by processing state (FAILED: funds stuck at the invoice address, see docs/worker.md)', ['state']);
  for (const [state, n] of byValue(Object.values(PaymentState), payments.map((r) => ({ key: r.paymentState, count: r._count._all })))) paymentGauge.set({ state }, n);
  const sendGauge = gauge('invoicing_sends', 'Outgoing sends (forwards, refunds, activations, payouts) by state', ['state']);
  for (const [state, n] of byValue(Object.values(SendState), sends.map((r) => ({ key: r.sendState, count: r._count._all })))) sendGauge.set({ state }, n);
  const invoiceGauge = gauge('invoicing_invoices', 'Invoices by status', ['status']);
  for (const [status, n] of byValue(Object.values(InvoiceStatus), invoices.map((r) => ({ key: r.status, count: r._count._all })))) invoiceGauge.set({ status }, n);
  const deliveryGauge = gauge('invoicing_webhook_deliveries', 'Webhook deliveries by outcome (DELIVERED: 2xx; FAILED: error, timeout or non-2xx; PENDING/SENDING: not done yet)', ['status']);
  for (const [status, n] of byValue(Object.values(DeliveryStatus), deliveries.map((r) => ({ key: r.status, count: r._count._all })))) deliveryGauge.set({ status }, n);

  if (cursor) gauge('invoicing_scanner_block', 'Last block the scanner has recorded').set(cursor.blockNumber);
  if (lastScan) gauge('invoicing_worker_last_scan_age_seconds', 'Seconds since a worker last completed a scan step').set(Math.max(0, (now - lastScan.getTime()) / 1000));
  gauge('invoicing_chain_up', '1 if the Tron node answered the last chain read (cached ' + CHAIN_CACHE_MS / 1000 + ' s)').set(facts ? 1 : 0);
  if (facts) {
    gauge('invoicing_chain_confirmed_block', 'Highest solidified block of the node').set(facts.confirmedBlock);
    if (cursor) gauge('invoicing_scanner_blocks_behind', 'Solidified blocks not yet scanned').set(Math.max(0, facts.confirmedBlock - cursor.blockNumber));
    // A metric, not money: a float of TRX is what a dashboard plots and alerts on.
    gauge('invoicing_gas_wallet_balance_trx', 'TRX balance of the service gas wallet').set(Number(facts.gasBalanceSun) / 1e6);
    gauge('invoicing_gas_wallet_energy_available', 'Energy the gas wallet has left from staking (else it burns TRX)').set(Number(facts.energyAvailable));
    gauge('invoicing_gas_wallet_bandwidth_available', 'Free and staked bandwidth the gas wallet has left').set(Number(facts.bandwidthAvailable));
  }
  // The energy engine (docs/energy.md): what the pool can lend, what it has lent, what waits for it, what burned.
  if (energy) {
    gauge('invoicing_energy_pool_enabled', '1 if USDT sends are paid with the pool\'s staked energy (as the worker last published)').set(energy.poolEnabled ? 1 : 0);
    gauge('invoicing_energy_pool_lendable', 'Energy the pool can still lend now').set(Number(energy.lendableEnergy));
    gauge('invoicing_energy_pool_lent', 'Energy the pool has lent out now').set(Number(energy.lentEnergy));
    gauge('invoicing_energy_pool_next_hour_need', 'Energy USDT sends are expected to borrow in the next hour (the last hour\'s lending and the payments waiting for energy)').set(Number(energy.nextHourNeedEnergy));
    gauge('invoicing_energy_pool_headroom_low', '1 while the pool cannot lend the next hour\'s expected need (the worker logged an ALERT as it became low)').set(energy.headroomLowSince ? 1 : 0);
    gauge('invoicing_energy_status_age_seconds', 'Seconds since the worker last published the pool status').set(Math.max(0, (now - energy.updatedAt.getTime()) / 1000));
  }
  gauge('invoicing_sends_waiting_for_energy', 'Payments whose forward or refund, and payouts whose wave, wait for energy (no pool headroom, and renting or burning above its cap or not worth it)').set(waiting);
  gauge('invoicing_trx_burned_today', 'TRX the network burned today (UTC) for the service\'s sends, from their receipts').set(Number(burnedToday._sum.feeSun ?? 0n) / 1e6);
  gauge('invoicing_energy_rental_spend_trx_today', 'TRX paid today (UTC) to the energy rental provider for rented energy (docs/energy.md)').set(Number(rentedToday._sum.priceSun ?? 0n) / 1e6);
  gauge('invoicing_energy_rental_spend_trx_total', 'TRX paid in all to the energy rental provider for rented energy').set(Number(rentedTotal._sum.priceSun ?? 0n) / 1e6);
  // The node provider's budget (docs/chain.md): every request to the node by endpoint, of each live worker (its heartbeat)
  // and of this web process; counters from each process's start, so a restart starts them again (Prometheus' reset).
  const nodeRequests = new Counter({ name: 'invoicing_node_requests_total', help: 'Requests sent to the Tron node since the process started, by process (worker: each live worker, by its owner; web: the process serving this scrape) and endpoint', labelNames: ['process', 'worker', 'endpoint'], registers: [registry] });
  const throttled = new Counter({ name: 'invoicing_node_throttled_total', help: 'Answers of the node refusing us as over its rate limit (429, or 403/503 naming a suspension) since the process started; requests then wait as asked', labelNames: ['process', 'worker'], registers: [registry] });
  const meters = [
    ...workers.flatMap((w) => {
      const parsed = nodeRequestsJson.safeParse(w.nodeRequests);
      return parsed.success ? [{ process: 'worker', worker: w.owner, ...parsed.data }] : [];
    }),
    { process: 'web', worker: '', ...nodeRequestCounts() },
  ];
  for (const m of meters) {
    for (const [endpoint, n] of Object.entries(m.requests)) nodeRequests.inc({ process: m.process, worker: m.worker, endpoint }, n);
    throttled.inc({ process: m.process, worker: m.worker }, m.throttled);
  }
  // Supervision (docs/operations.md): unlike the rest, per host, as its runner and web primary counted them.
  const restarts = new Counter({ name: 'invoicing_process_restarts_total', help: 'Processes restarted after dying unasked, by kind (web, worker, devnet), since the runner started', labelNames: ['process'], registers: [registry] });
  const counts = restartCounts();
  for (const kind of PROCESS_KINDS) restarts.inc({ process: kind }, counts[kind]);
  return { contentType: registry.contentType, body: await registry.metrics() };
}
