import type { IncomingHttpHeaders } from 'node:http';
import { timingSafeEqual } from 'node:crypto';
import { TronWeb } from 'tronweb';
import { z } from 'zod';
import type { Chain } from '@/lib/chain';
import { rentalSignature, sortedJson } from '@/lib/energy/rental';
import type { DevnetKey } from './genesis';
import { sendFromFaucet } from './pay';
import { DEVNET_RENTAL_API_KEY, DEVNET_RENTAL_API_SECRET } from './rentalAccount';

/**
 * The devnet's emulation of the energy rental provider itrx.io (docs/devnet.md, "Energy rental
 * provider"; docs/energy.md): its documented API paths on the devnet's own port, so only
 * ENERGY_RENTAL_URL differs from the real thing. A provider account (the devnet mnemonic's
 * account 2), funded from the faucet and staked for energy when the devnet starts, performs a
 * REAL DelegateResource to the receive address for every order and takes it back
 * (UnDelegateResource) at the period's end. Orders are deduplicated by out_trade_no. POST requests
 * must carry API-KEY, TIMESTAMP and a valid SIGNATURE (HMAC-SHA256 over `timestamp&sorted json`).
 *
 * Failure modes, switched by POST /devnet/rental (DELETE resets): `down` answers 503; `partial`
 * delegates `partial_percent` of the energy (status 31); `slow` delegates after `delay_blocks`
 * blocks; `price_sun_per_energy` sets the price; `charge_sun_per_energy` charges orders another
 * price than quoted; `lose_answers` places and charges the next N orders but answers 503;
 * `refuse_orders` refuses orders with that message (errno 2; after the lost answers, when both are set). An address that is not an account
 * is always refused (errno 1), as the provider documents (api/order-create.md).
 */

export { DEVNET_RENTAL_API_KEY, DEVNET_RENTAL_API_SECRET } from './rentalAccount';
/** TRX the provider account stakes for energy (about 9.4 energy per TRX a day at mainnet totals: ~190M energy a day). */
const PROVIDER_STAKE_TRX = 20_000_000n;
const TRX = 1_000_000n;
const PERIOD_MS: Record<string, number> = { '1H': 3_600_000, '1D': 86_400_000, '3D': 3 * 86_400_000, '30D': 30 * 86_400_000 };
const PERIOD_CODE: Record<string, number> = { '1H': 0, '1D': 1, '3D': 3, '30D': 30 };

export const rentalControlSchema = z
  .object({
    mode: z.enum(['ok', 'down', 'partial', 'slow']).optional(),
    price_sun_per_energy: z.coerce.number().int().min(1).max(10_000).optional(),
    delay_blocks: z.coerce.number().int().min(1).max(100_000).optional(),
    partial_percent: z.coerce.number().int().min(1).max(99).optional(),
    /** The delegation is taken back this long after it was made, instead of the period's real length. */
    period_ms: z.coerce.number().int().min(1).optional(),
    /** Orders are charged at this price (sun per energy) whatever the quote said: a provider that charges more than it quotes. */
    charge_sun_per_energy: z.coerce.number().int().min(1).max(10_000).optional(),
    /** The next N orders are placed and charged, and their answer is lost (503): the client cannot know. */
    lose_answers: z.coerce.number().int().min(0).max(1_000).optional(),
    /** Orders are refused with this message (errno 2), before anything else, as a provider refuses for its own reasons. */
    refuse_orders: z.string().max(200).optional(),
  })
  .strict();
export type RentalControl = z.infer<typeof rentalControlSchema>;

const DEFAULTS: {
  mode: 'ok' | 'down' | 'partial' | 'slow';
  price_sun_per_energy: number;
  delay_blocks: number;
  partial_percent: number;
  period_ms: number | undefined;
  charge_sun_per_energy: number | undefined;
  lose_answers: number;
  refuse_orders: string | undefined;
} = { mode: 'ok', price_sun_per_energy: 60, delay_blocks: 20, partial_percent: 50, period_ms: undefined, charge_sun_per_energy: undefined, lose_answers: 0, refuse_orders: undefined };

interface Detail {
  delegate_hash: string;
  delegate_time: string;
  reclaim_hash?: string;
  reclaim_time: string;
  reclaim_time_real?: string;
  status: number;
}

interface Order {
  serial: string;
  outTradeNo: string | null;
  receiveAddress: string;
  energyAmount: number;
  delegatedEnergy: number;
  stakeSun: bigint;
  period: string;
  amountSun: bigint;
  status: number;
  createTime: string;
  details: Detail[];
}

export interface RentalReply {
  status: number;
  body: unknown;
}

export class RentalProvider {
  private settings = { ...DEFAULTS };
  private readonly orders = new Map<string, Order>();
  private spentSun = 0n;
  private balanceSun = 1_000_000n * TRX;
  private ready: Promise<void> | null = null;
  /** The provider's chain operations go out one at a time. */
  private queue: Promise<unknown> = Promise.resolve();
  private readonly timers = new Set<NodeJS.Timeout>();

  constructor(
    private readonly deps: { chain: () => Chain; provider: DevnetKey; faucet: DevnetKey; blockMs: number; inBlock: (txId: string) => boolean },
  ) {}

  /** Funds and stakes the provider account once (in the background from the devnet's start). */
  prepare(): Promise<void> {
    this.ready ??= this.setUp().catch((err: unknown) => {
      this.ready = null;
      throw err;
    });
    return this.ready;
  }

  private async setUp(): Promise<void> {
    const chain = this.deps.chain();
    const address = this.deps.provider.address;
    const stake = await chain.getStake(address);
    if (stake.frozenSun.ENERGY + stake.delegatedSun.ENERGY >= PROVIDER_STAKE_TRX * TRX) return;
    const funded = await sendFromFaucet(chain, this.deps.faucet.privateKey, { address, amount: String(PROVIDER_STAKE_TRX + 10_000n), currency: 'TRX' });
    await this.landed(funded.txId);
    const signed = await chain.buildSignedResourceOp(this.deps.provider.privateKey, { kind: 'stake', resource: 'ENERGY', amountSun: PROVIDER_STAKE_TRX * TRX });
    await chain.broadcast(signed.signedTx);
    await this.landed(signed.txId);
  }

  private async landed(txId: string): Promise<void> {
    for (let i = 0; i < 2000 && !this.deps.inBlock(txId); i++) await new Promise((r) => setTimeout(r, Math.max(5, this.deps.blockMs / 2)));
    if (!this.deps.inBlock(txId)) throw new Error(`rental provider: ${txId} not in a block`);
  }

  control(method: string, params: Record<string, unknown>): unknown {
    if (method === 'DELETE') this.settings = { ...DEFAULTS };
    else if (method === 'POST') {
      const parsed = rentalControlSchema.safeParse(params);
      if (!parsed.success) throw new RangeError(parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; '));
      this.settings = { ...this.settings, ...Object.fromEntries(Object.entries(parsed.data).filter(([, v]) => v !== undefined)) };
    }
    return { ...this.settings, provider: this.deps.provider.address, orders: this.orders.size, spent_sun: this.spentSun.toString(), balance_sun: this.balanceSun.toString() };
  }

  close(): void {
    for (const t of this.timers) clearTimeout(t);
  }

  private later(ms: number, fn: () => Promise<void>): void {
    const t = setTimeout(() => {
      this.timers.delete(t);
      fn().catch((err: unknown) => console.error('devnet rental:', err));
    }, ms);
    t.unref();
    this.timers.add(t);
  }

  private price(energy: number, charged = false): { price: number; total: bigint; addition: bigint } {
    const price = charged ? (this.settings.charge_sun_per_energy ?? this.settings.price_sun_per_energy) : this.settings.price_sun_per_energy;
    const addition = energy < 50_000 ? 600_000n : 0n;
    return { price, total: BigInt(energy) * BigInt(price) + addition, addition };
  }

  /** One request to an /api/v1/frontend/... path. */
  async handle(method: string, path: string, params: Record<string, unknown>, headers: IncomingHttpHeaders): Promise<RentalReply> {
    if (this.settings.mode === 'down') return { status: 503, body: { detail: 'Service Unavailable' } };
    if (headers['api-key'] !== DEVNET_RENTAL_API_KEY) return { status: 403, body: { detail: 'API not found' } };
    if (method === 'POST') {
      const timestamp = String(headers.timestamp ?? '');
      const given = Buffer.from(String(headers.signature ?? ''));
      const want = Buffer.from(rentalSignature(DEVNET_RENTAL_API_SECRET, timestamp, sortedJson(params)));
      if (!/^\d{10}$/.test(timestamp) || Math.abs(Number(timestamp) - Date.now() / 1000) > 300) return { status: 400, body: { detail: 'TIMESTAMP missing or too far from now' } };
      if (given.length !== want.length || !timingSafeEqual(given, want)) return { status: 400, body: { detail: 'SIGNATURE mismatch' } };
    }
    switch (`${method} ${path}`) {
      case 'GET /api/v1/frontend/order/price': {
        const errors = this.invalid(params, false);
        if (errors) return { status: 400, body: errors };
        const energy = Number(params.energy_amount);
        const p = this.price(energy);
        return { status: 200, body: { period: String(params.period), energy_amount: energy, price: p.price, total_price: Number(p.total), addition: Number(p.addition) } };
      }
      case 'POST /api/v1/frontend/order':
        return this.order(params);
      case 'GET /api/v1/frontend/order/query': {
        const o = this.orders.get(String(params.serial ?? ''));
        if (!o) return { status: 200, body: { errno: 404, message: 'Order not found' } };
        return {
          status: 200,
          body: {
            errno: 0,
            receive_address: o.receiveAddress,
            order_no: o.serial,
            energy_amount: o.energyAmount,
            pay_amount: o.delegatedEnergy,
            amount: Number(o.amountSun),
            details: o.details,
            create_time: o.createTime,
            api_name: 'devnet',
            period: PERIOD_CODE[o.period],
            status: o.status,
            refund_amount: 0,
          },
        };
      }
      case 'GET /api/v1/frontend/userapi/summary':
        return { status: 200, body: { name: 'devnet', create_time: '2026-01-01 00:00:00', total_count: this.orders.size, total_sum_energy: [...this.orders.values()].reduce((s, o) => s + o.energyAmount, 0), total_sum_trx: Number(this.spentSun) } };
      default:
        return { status: 400, body: { detail: `${method} ${path} is not an API of the provider` } };
    }
  }

  /** Field errors as the provider writes them (general/error-code.md), or null. */
  private invalid(params: Record<string, unknown>, order: boolean): Record<string, string[]> | null {
    const errors: Record<string, string[]> = {};
    const energy = Number(params.energy_amount);
    if (!Number.isInteger(energy) || energy < 10_000) errors.energy_amount = ['Please make sure the value is greater than or equal to 10000.'];
    if (!(String(params.period) in PERIOD_MS)) errors.period = [`'${String(params.period)}' is not a legal option.`];
    if (order && !(typeof params.receive_address === 'string' && TronWeb.isAddress(params.receive_address) && params.receive_address.startsWith('T'))) errors.receive_address = ['Not a valid Tron address.'];
    return Object.keys(errors).length ? errors : null;
  }

  /** Orders by out_trade_no, placed or being placed: the same out_trade_no again (an answer lost, a client that crashed and retried) is the same order, charged once. */
  private readonly placing = new Map<string, Promise<RentalReply>>();

  private async order(params: Record<string, unknown>): Promise<RentalReply> {
    if (this.settings.lose_answers === 0) return this.orderOnce(params, true);
    // Placed and charged; the answer never reaches the client (a refusal set beside it applies to the orders after).
    const reply = await this.orderOnce(params, false);
    if (reply.status !== 200 || (reply.body as { errno: number }).errno !== 0) return reply;
    this.settings.lose_answers--;
    return { status: 503, body: { detail: 'Service Unavailable' } };
  }

  private orderOnce(params: Record<string, unknown>, mayRefuse: boolean): Promise<RentalReply> {
    const errors = this.invalid(params, true);
    if (errors) return Promise.resolve({ status: 400, body: errors });
    if (mayRefuse && this.settings.refuse_orders !== undefined) return Promise.resolve({ status: 200, body: { errno: 2, message: this.settings.refuse_orders } });
    const outTradeNo = typeof params.out_trade_no === 'string' && params.out_trade_no ? params.out_trade_no : null;
    if (!outTradeNo) return this.place(params, null);
    const known = this.placing.get(outTradeNo);
    if (known) return known.then((r) => (r.status === 200 && (r.body as { errno: number }).errno === 0 ? { status: 200, body: { ...(r.body as object), balance: Number(this.balanceSun) } } : r));
    const placing = this.place(params, outTradeNo).then((r) => {
      // A refusal placed nothing: the same out_trade_no may be ordered again.
      if (r.status !== 200 || (r.body as { errno: number }).errno !== 0) this.placing.delete(outTradeNo);
      return r;
    });
    this.placing.set(outTradeNo, placing);
    return placing;
  }

  private async place(params: Record<string, unknown>, outTradeNo: string | null): Promise<RentalReply> {
    await this.prepare();
    const chain = this.deps.chain();
    const receiveAddress = String(params.receive_address);
    if (!(await chain.isActivated(receiveAddress))) return { status: 200, body: { errno: 1, message: 'receive_address is not activated' } };
    const energy = Number(params.energy_amount);
    const { total } = this.price(energy, true);
    if (this.balanceSun < total) return { status: 200, body: { errno: 1, message: 'Insufficient balance' } };
    const serial = Buffer.from(TronWeb.sha3(`${outTradeNo ?? ''}:${this.orders.size}:${Date.now()}`).slice(2), 'hex').subarray(0, 16).toString('hex');
    const period = String(params.period);
    const order: Order = { serial, outTradeNo, receiveAddress, energyAmount: energy, delegatedEnergy: 0, stakeSun: 0n, period, amountSun: total, status: 30, createTime: new Date().toISOString(), details: [] };
    this.orders.set(serial, order);
    this.balanceSun -= total;
    this.spentSun += total;
    const mode = this.settings.mode;
    const share = mode === 'partial' ? Math.floor((energy * this.settings.partial_percent) / 100) : energy;
    const delegate = () => this.enqueue(() => this.delegate(order, share, mode === 'partial' ? 31 : 40));
    if (mode === 'slow') this.later(this.settings.delay_blocks * this.deps.blockMs, delegate);
    else void delegate().catch((err: unknown) => console.error('devnet rental:', err));
    return { status: 200, body: { errno: 0, serial, amount: Number(total), balance: Number(this.balanceSun) } };
  }

  private enqueue(op: () => Promise<void>): Promise<void> {
    const run = this.queue.then(op, op);
    this.queue = run.catch(() => undefined);
    return run;
  }

  /** A real DelegateResource of the stake that yields `energy` at the live totals; taken back at the period's end. */
  private async delegate(order: Order, energy: number, doneStatus: number): Promise<void> {
    const chain = this.deps.chain();
    const totals = await chain.getAccountResources(this.deps.provider.address);
    const trx = (BigInt(energy) * totals.totalEnergyWeight + totals.totalEnergyLimit - 1n) / totals.totalEnergyLimit;
    const stakeSun = (trx < 1n ? 1n : trx) * TRX;
    const signed = await chain.buildSignedResourceOp(this.deps.provider.privateKey, { kind: 'delegate', resource: 'ENERGY', receiver: order.receiveAddress, amountSun: stakeSun });
    await chain.broadcast(signed.signedTx);
    await this.landed(signed.txId);
    const periodMs = this.settings.period_ms ?? PERIOD_MS[order.period]!;
    const detail: Detail = { delegate_hash: signed.txId, delegate_time: new Date().toISOString(), reclaim_time: new Date(Date.now() + periodMs).toISOString(), status: 20 };
    order.details.push(detail);
    order.delegatedEnergy = energy;
    order.stakeSun = stakeSun;
    order.status = doneStatus;
    this.later(periodMs, () =>
      this.enqueue(async () => {
        const back = await chain.buildSignedResourceOp(this.deps.provider.privateKey, { kind: 'undelegate', resource: 'ENERGY', receiver: order.receiveAddress, amountSun: stakeSun });
        await chain.broadcast(back.signedTx);
        await this.landed(back.txId);
        detail.reclaim_hash = back.txId;
        detail.reclaim_time_real = new Date().toISOString();
        detail.status = 30;
      }),
    );
  }
}
