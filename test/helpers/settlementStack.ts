import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import { TronWeb } from 'tronweb';
import { createChain, type Chain } from '@/lib/chain';
import { deriveAccount } from '@/lib/chain/keys';
import type { Merchant, Transaction } from '@/lib/generated/prisma/client';
import { tokenAmountText } from '@/lib/money/tokens';
import { freePort, startApp, TEST_MNEMONIC, type TestApp } from './app';
import { dbGate } from './dbGate';
import { startDevnetProcess, waitFor, type DevnetProcess } from './devnet';
import { startWorker, type WorkerProcess } from './worker';

export interface Hook {
  id: number;
  status: string;
  key: string;
}

/**
 * The real stack a settlement suite drives: a devnet (100 ms blocks, solidified 3 deep), the app,
 * the worker and a webhook receiver, with the gas wallet and a flagged sender funded, and the
 * few things each suite asks of them (a merchant, an invoice, a payment reaching a state).
 * Nothing here writes a state the worker produces.
 */
export class SettlementStack {
  readonly hooks: Hook[] = [];
  /** Every merchant newMerchant made, with its API key. */
  readonly merchants: { id: number; key: string }[] = [];
  readonly flagged = TronWeb.createRandom() as unknown as { address: string; privateKey: string };
  readonly gasWallet = deriveAccount(TEST_MNEMONIC, 0, 'gas');
  devnet!: DevnetProcess;
  /** The first host's web process and worker. */
  app!: TestApp;
  worker!: WorkerProcess;
  /** Every host's web process and worker (one each unless `hosts` was given), on one database. */
  apps: TestApp[] = [];
  workers: WorkerProcess[] = [];
  chain!: Chain;
  private hookServer!: Server;
  private hookUrl = '';

  /**
   * `workerEnv` is the worker's settings beside the flagged sender (AML_FLAGGED_ADDRESSES);
   * `beforeWorker` funds what else the suite needs before the worker starts scanning. With
   * `hosts` above one, as many web processes and workers, each in a process group of its own
   * (as on separate hosts), share the one database and devnet; `appEnv` is the web's settings.
   */
  async start(workerEnv: Record<string, string> = {}, beforeWorker?: () => Promise<void>, options: { hosts?: number; appEnv?: Record<string, string>; blockMs?: number; solidifiedDepth?: number } = {}): Promise<this> {
    const hosts = options.hosts ?? 1;
    this.hookServer = createServer((req, res) => {
      let body = '';
      req.on('data', (d) => (body += d));
      req.on('end', () => {
        const json = JSON.parse(body);
        this.hooks.push({ id: json.id, status: json.status, key: String(req.headers['idempotency-key']) });
        res.end('ok');
      });
    });
    const port = await freePort();
    await new Promise<void>((r) => this.hookServer.listen(port, '127.0.0.1', r));
    this.hookUrl = `http://127.0.0.1:${port}/hook`;
    this.devnet = await startDevnetProcess({ blockMs: options.blockMs ?? 100, solidifiedDepth: options.solidifiedDepth ?? 3 });
    const appEnv = { TRON_FULL_NODE_URL: this.devnet.url, TRON_USDT_CONTRACT: this.devnet.usdtContract, ...options.appEnv };
    this.app = await startApp(appEnv, { detached: hosts > 1 });
    this.apps.push(this.app);
    // The other hosts' web processes: the same database and secrets, their own ports.
    for (let i = 1; i < hosts; i++) {
      const { MASTER_KEY, NEXTAUTH_SECRET } = this.app.env;
      this.apps.push(await startApp({ ...appEnv, MASTER_KEY: MASTER_KEY!, NEXTAUTH_SECRET: NEXTAUTH_SECRET! }, { database: this.app.database, detached: true }));
    }
    this.chain = createChain({ fullNodeUrl: this.devnet.url, apiKey: null, usdtContract: this.devnet.usdtContract, txExpirationMs: 60_000 });
    await this.pay(this.gasWallet.address, '10000', 'TRX');
    await this.pay(this.flagged.address, '500', 'TRX');
    await beforeWorker?.();
    // These suites follow sends, lendings and takings back, whatever the settings.
    for (const app of this.apps) this.workers.push(startWorker(app.env, this.devnet, { AML_FLAGGED_ADDRESSES: this.flagged.address, ...workerEnv }, { detached: hosts > 1, followsEnergy: true }));
    this.worker = this.workers[0]!;
    return this;
  }

  async stop(): Promise<void> {
    const workers = this.everyWorker();
    if (process.env.DEBUG_WORKER) (await import('node:fs')).writeFileSync(process.env.DEBUG_WORKER, workers.map((w) => w.output()).join('\n'));
    await Promise.all(workers.map((w) => w.stop()));
    // The first app drops the shared database: the others stop before it.
    for (const app of this.apps.slice(1)) await app.stop();
    await this.app?.stop();
    await this.devnet?.stop();
    this.hookServer?.close();
  }

  /** Waits until ENERGY_POOL_AUTOSTAKE's two stakes (energy, bandwidth) have landed (`waitForPool`). */
  async poolStaked(timeoutMs = 180_000): Promise<void> {
    await this.waitForPool('the pool staked', async () => (await this.poolOperations()).filter((r) => r.sendState === 'CONFIRMED').length === 2, timeoutMs);
  }

  /**
   * `waitFor` for something of the gas wallet's pool. On a timeout it says what the books hold of the
   * pool and what the workers said of it: a CI run that waited four minutes for a pool staked once of
   * twice said only "timed out" (2026-12-04).
   */
  async waitForPool<T>(what: string, probe: () => Promise<T | undefined | null | false>, timeoutMs = 180_000): Promise<T> {
    try {
      return await waitFor(what, probe, timeoutMs);
    } catch (err) {
      const said = this.everyWorker().flatMap((w) => w.output().split('\n')).filter((l) => /energy|ALERT|stak|error/i.test(l));
      throw new Error(`${(err as Error).message}; pool operations ${await this.poolOperationsSaid()}; the worker said of it:\n${[...new Set(said)].slice(-40).join('\n')}`);
    }
  }

  /** The gas wallet's stakes and unstakes in the books (POOL_STAKE sends), oldest first. */
  poolOperations() {
    return this.app.prisma.transaction.findMany({ where: { sendPurpose: 'POOL_STAKE' }, orderBy: { id: 'asc' } });
  }

  /** poolOperations as one line for a failure message: id, type, resource, state, block, error. */
  async poolOperationsSaid(): Promise<string> {
    return JSON.stringify((await this.poolOperations()).map((r) => [r.id, r.type, r.resource, r.sendState, r.blockNumber, r.error]));
  }

  /** Every worker once: a suite may have replaced `worker` (the first host's) with one it started itself. */
  private everyWorker(): WorkerProcess[] {
    return [...new Set([this.worker, ...this.workers].filter(Boolean))];
  }

  /** The blocks `finalizing` made final on demand (POST /devnet/solidify), oldest first. */
  readonly solidifiedOnDemand: number[] = [];

  /**
   * Waits for `wait` while the devnet makes its newest block final every 250 ms (POST
   * /devnet/solidify): for the part of a test after what must happen before finality, on a devnet
   * final many blocks deep, so the test does not wait those blocks. Nothing is made final once it
   * returns.
   */
  async finalizing<T>(wait: () => Promise<T>): Promise<T> {
    let on = true;
    let failed: unknown = null;
    const loop = (async () => {
      while (on) {
        this.solidifiedOnDemand.push((await this.devnet.solidify()).solidifiedBlock);
        await new Promise((r) => setTimeout(r, 250));
      }
    })().catch((err: unknown) => void (failed = err));
    try {
      return await wait();
    } catch (err) {
      throw failed ? new Error(`${(err as Error).message}; making blocks final failed: ${(failed as Error).message}`) : err;
    } finally {
      on = false;
      await loop;
    }
  }

  /**
   * The newest block at or below which everything was final when block `n` became final: the first
   * block `finalizing` made final at or above `n`, or block `n + depth`, whichever came first.
   */
  finalBlock(n: number, depth: number): number {
    return Math.min(n + depth, ...this.solidifiedOnDemand.filter((b) => b >= n));
  }

  /** When block `n` became final (ms since the epoch): the timestamp of `finalBlock(n, depth)`. */
  async finalAt(n: number, depth: number): Promise<number> {
    const final = this.finalBlock(n, depth);
    const block = (await (await fetch(`${this.devnet.url}/wallet/getblock`, { method: 'POST', body: JSON.stringify({ id_or_num: String(final), detail: false }) })).json()) as { block_header?: { raw_data: { timestamp: number } } };
    assert.ok(block.block_header, `block ${final}, which made block ${n} final, exists`);
    return block.block_header.raw_data.timestamp;
  }

  /** The devnet faucet pays `amount` (a decimal) of a token to `address`. */
  pay(address: string, amount: string, currency: 'TRX' | 'USDT'): Promise<unknown> {
    return this.devnet.pay(address, amount, currency);
  }

  /** A merchant with a fresh target wallet and its webhooks sent to this stack's receiver. */
  async newMerchant(opts: { aml?: boolean } = {}): Promise<{ merchant: Merchant; key: string; target: string }> {
    const target = (TronWeb.createRandom() as unknown as { address: string }).address;
    const { merchant, key } = await this.app.createMerchant({ targetWallet: target });
    await this.app.prisma.merchant.update({ where: { id: merchant.id }, data: { webhookUrl: this.hookUrl, amlCheck: opts.aml ?? false, amlRiskLimit: '50' } });
    this.merchants.push({ id: merchant.id, key });
    return { merchant, key, target };
  }

  async invoice(key: string, body: object): Promise<{ id: number; address: string; currencies_amounts: Record<string, number> }> {
    const res = await this.app.api('/payment/create', key, { method: 'POST', body });
    assert.equal(res.status, 200, res.text);
    return res.json;
  }

  /**
   * A USDT payout to one new address for 5 USDT, topped up with 3 (short of what it needs), then
   * past its time: TIMEOUT, the 3 USDT kept at its address, ready to be returned.
   */
  async timedOutShortPayout(key: string, topUpWaitMs: number): Promise<{ id: number; address: string }> {
    const targets = [{ address: (TronWeb.createRandom() as unknown as { address: string }).address, amount: 5 }];
    const res = await this.app.api('/payment/multiple_transfer/create', key, { method: 'POST', body: { currency: 'USDT', target_wallets: targets } });
    assert.equal(res.status, 200, res.text);
    const payout = res.json as { id: number; address: string };
    await this.pay(payout.address, '3', 'USDT');
    await waitFor('the top-up recorded', () => this.app.prisma.transaction.findFirst({ where: { invoiceId: payout.id, type: 'TOPUP' } }), topUpWaitMs);
    await this.app.prisma.invoice.update({ where: { id: payout.id }, data: { expiredAt: new Date(Date.now() - 1000) } });
    await this.waitStatus(key, payout.id, 'TIMEOUT', 120_000);
    return payout;
  }

  statusOf = async (key: string, id: number) => (await this.app.api(`/payment/get/${id}`, key)).json;

  /** The invoice's transactions, for a failure's message. */
  dump = async (invoiceId: number) =>
    JSON.stringify(await this.app.prisma.transaction.findMany({ where: { invoiceId }, orderBy: { id: 'asc' } }), (_k, v) => (typeof v === 'bigint' ? String(v) : v));

  async waitStatus(key: string, id: number, status: string, timeoutMs = 60_000) {
    try {
      return await waitFor(`invoice ${id} to be ${status}`, async () => ((await this.statusOf(key, id)).status === status ? this.statusOf(key, id) : null), timeoutMs);
    } catch (err) {
      throw new Error(`${(err as Error).message}; invoice is ${JSON.stringify(await this.statusOf(key, id))}; transactions ${await this.dump(id)}`);
    }
  }

  paymentOf(invoiceId: number, amountUnits: bigint, timeoutMs = 60_000): Promise<Transaction> {
    return waitFor(`payment of ${amountUnits} to invoice ${invoiceId}`, () => this.app.prisma.transaction.findFirst({ where: { invoiceId, type: 'PAYMENT', amountUnits } }), timeoutMs);
  }

  async paymentState(id: number, states: string[], timeoutMs = 60_000): Promise<Transaction> {
    try {
      return await waitFor(`payment ${id} in ${states}`, async () => {
        const p = await this.app.prisma.transaction.findUniqueOrThrow({ where: { id } });
        return states.includes(p.paymentState ?? '') ? p : null;
      }, timeoutMs);
    } catch (err) {
      const p = await this.app.prisma.transaction.findUniqueOrThrow({ where: { id } });
      throw new Error(`${(err as Error).message}; ${await this.dump(p.invoiceId!)}`);
    }
  }

  /**
   * Holds the one slot a send of `type` from (a forward) or to (a taking back of lent energy) `address`
   * takes (a partial unique index), in an open transaction, so the worker's send waits to be stored.
   * The row names no invoice or merchant: a reference would lock their rows against the worker's updates.
   */
  holdSlot(type: 'FORWARD' | 'ENERGY_RECLAIM', address: string) {
    // A taking back of energy holds the slot of the energy's pool operations there (one in flight per address and resource, migration 0109).
    const [txType, from, resource] = type === 'FORWARD' ? ['TRANSFER', address, null] : ['UNDELEGATE', this.gasWallet.address, 'ENERGY'];
    return dbGate(
      this.app.env.DATABASE_URL!,
      `INSERT INTO transactions (type, trn_hash, chain_ref, from_address, to_address, amount_units, currency, send_state, send_purpose, resource)
       VALUES ($1::"TransactionType", $2, $2 || ':send', $3, $4, 0, 'TRX', 'SIGNED', $5::"SendPurpose", $6)`,
      [txType, `gate-${type}-${address}`, from, address, type, resource],
    );
  }

  /** Waits until the worker waits to store a send behind `gate`; the waiting backends' ids. */
  insertWaiting(gate: Awaited<ReturnType<typeof dbGate>>): Promise<number[]> {
    return waitFor('the worker waiting to store a send', async () => {
      const pids = await gate.waiting('%INSERT INTO%transactions%');
      return pids.length ? pids : null;
    }, 180_000);
  }

  /**
   * Pays a USDT invoice and stops the worker once it has lent the forward's energy and signed the
   * forward, before storing it; runs `meanwhile` (a change of the chain), then lets the forward go.
   */
  async payWithForwardHeld(invoice: { id: number; address: string; currencies_amounts: Record<string, number> }, meanwhile: () => Promise<void>): Promise<void> {
    const gate = await this.holdSlot('FORWARD', invoice.address);
    try {
      await this.pay(invoice.address, String(invoice.currencies_amounts.USDT), 'USDT');
      await this.insertWaiting(gate);
      // In a block, final or not: the fast path (FORWARD_BEFORE_FINALITY) signs the forward once the lending is in a head block.
      assert.ok(await this.app.prisma.transaction.findFirst({ where: { invoiceId: invoice.id, type: 'DELEGATE', sendState: { in: ['BROADCAST', 'CONFIRMED'] }, blockNumber: { not: null } } }), 'the energy was lent first');
      await meanwhile();
    } finally {
      await gate.release();
    }
  }

  /** The flagged sender (AML_FLAGGED_ADDRESSES) pays `units` of USDT to `address` from its own wallet, funded from the faucet first. */
  async flaggedPaysUsdt(address: string, units: bigint): Promise<void> {
    await this.pay(this.flagged.address, tokenAmountText(units), 'USDT');
    await waitFor('the flagged sender holds USDT', async () => ((await this.chain.getUsdtBalance(this.flagged.address)) >= units ? true : null), 60_000);
    const sent = await this.chain.buildSignedUsdtTransfer(this.flagged.privateKey, address, units, 100_000_000n);
    await this.chain.broadcast(sent.signedTx);
  }

  hooked(invoiceId: number, status: string): boolean {
    return this.hooks.some((h) => h.id === invoiceId && h.status === status);
  }
}

/** The stack's helpers as plain functions, for suites that call them often. */
export function bind(s: SettlementStack) {
  return {
    newMerchant: s.newMerchant.bind(s),
    invoice: s.invoice.bind(s),
    statusOf: s.statusOf,
    dump: s.dump,
    waitStatus: s.waitStatus.bind(s),
    paymentOf: s.paymentOf.bind(s),
    paymentState: s.paymentState.bind(s),
  };
}
