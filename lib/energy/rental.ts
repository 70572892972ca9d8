import { createHmac } from 'node:crypto';

/**
 * A client of one energy rental provider's documented HTTP API: itrx.io (docs/energy.md, "Rented
 * energy"; the API is documented in the public repository tronenergy-global/tron-energy-doc,
 * api/order-price.md, api/order-create.md, api/order-query.md, api/api-summary.md, general/sign.md,
 * general/error-code.md). Framework-free, with explicit dependencies (the URL, the key and secret,
 * fetch and a clock), so the devnet's emulation and a test can stand behind it.
 *
 * - GET  /api/v1/frontend/order/price?period&energy_amount  -> {total_price} (sun)
 * - POST /api/v1/frontend/order {energy_amount, out_trade_no, period, receive_address}, signed:
 *   headers API-KEY, TIMESTAMP (seconds), SIGNATURE = hex HMAC-SHA256(secret, `${timestamp}&${json}`)
 *   over the body as JSON with its keys sorted, no spaces -> {errno: 0, serial, amount, balance}
 * - GET  /api/v1/frontend/order/query?serial -> {errno: 0, energy_amount, pay_amount, status, amount, details}
 * - GET  /api/v1/frontend/userapi/summary -> {total_count, total_sum_trx, ...}: what the account spent
 *
 * GET requests carry only API-KEY (general/sign.md). Replies: HTTP 200 with `errno` 0 (ok) or not
 * (with `message`); HTTP 400 with field errors or `{"detail": ...}` (general/error-code.md).
 * The docs document no cancel: a rented delegation returns to the provider at the period's end
 * (api/order-recliam.md reclaims early, but refunds nothing documented), so none is offered here.
 */

export type RentalPeriod = '1H' | '1D' | '3D' | '30D';

export interface RentalDeps {
  url: string;
  apiKey: string;
  apiSecret: string;
  period: RentalPeriod;
  timeoutMs: number;
  fetch?: typeof fetch;
  /** Seconds since the epoch (the TIMESTAMP header). */
  nowSeconds?: () => number;
}

/** The provider could not be reached, answered 5xx, or answered what the docs do not describe: nothing is known. */
export class RentalUnavailable extends Error {}
/** The provider answered and refused (errno != 0, HTTP 400/401/403): the order was not placed. */
export class RentalRefused extends Error {}

/** Order status codes (api/order-query.md). */
export const ORDER_STATUS: Record<number, string> = {
  0: 'timeout closed',
  10: 'waiting for payment',
  20: 'paid',
  30: 'delegation in preparation',
  31: 'partial commission',
  32: 'exception retrying',
  40: 'normal completion',
  41: 'refund termination',
  43: 'abnormal termination',
};

export interface RentalOrder {
  serial: string;
  /** What the order cost (`amount`), sun. */
  priceSun: bigint;
  /** The account's balance left at the provider (`balance`), sun. */
  providerBalanceSun: bigint;
}

export interface RentalStatus {
  /** Energy delegated so far (`pay_amount`). */
  filledEnergy: bigint;
  energyAmount: bigint;
  status: number;
  state: string;
  priceSun: bigint;
}

/** The body as the provider signs it: keys sorted, JSON without spaces (general/sign.md, step 1). */
export function sortedJson(body: Record<string, unknown>): string {
  return JSON.stringify(Object.fromEntries(Object.keys(body).sort().map((k) => [k, body[k]])));
}

/** SIGNATURE of a POST (general/sign.md, steps 2-3). */
export function rentalSignature(secret: string, timestamp: string, json: string): string {
  return createHmac('sha256', secret).update(`${timestamp}&${json}`).digest('hex');
}

const int = (v: unknown): bigint => {
  if (typeof v === 'number' && Number.isFinite(v)) return BigInt(Math.round(v));
  if (typeof v === 'string' && /^\d+(\.\d+)?$/.test(v)) return BigInt(v.split('.')[0]!);
  throw new RentalUnavailable(`the provider answered a number as ${JSON.stringify(v)}`);
};

export interface RentalClient {
  /** What renting `energy` for the configured period costs, in sun (`total_price`). */
  quote(energy: bigint): Promise<bigint>;
  /** Places the order; `outTradeNo` names it in our books (and, at the devnet's emulation, dedupes it). */
  order(receiveAddress: string, energy: bigint, outTradeNo: string): Promise<RentalOrder>;
  status(serial: string): Promise<RentalStatus>;
  /** What the account has spent in all (`total_sum_trx`, sun) and on how many orders. */
  summary(): Promise<{ totalSun: bigint; count: number }>;
}

export function rentalClient(deps: RentalDeps): RentalClient {
  const base = deps.url.replace(/\/+$/, '');
  const doFetch = deps.fetch ?? fetch;
  const now = deps.nowSeconds ?? (() => Math.floor(Date.now() / 1000));

  async function call(method: 'GET' | 'POST', path: string, body?: Record<string, unknown>): Promise<Record<string, unknown>> {
    const headers: Record<string, string> = { 'API-KEY': deps.apiKey, accept: 'application/json' };
    let payload: string | undefined;
    let url = `${base}${path}`;
    if (method === 'POST') {
      payload = sortedJson(body ?? {});
      const timestamp = String(now());
      headers.TIMESTAMP = timestamp;
      headers.SIGNATURE = rentalSignature(deps.apiSecret, timestamp, payload);
      headers['Content-Type'] = 'application/json';
    } else if (body) {
      url += `?${new URLSearchParams(Object.entries(body).map(([k, v]) => [k, String(v)]))}`;
    }
    let res: Response;
    try {
      res = await doFetch(url, { method, headers, body: payload, signal: AbortSignal.timeout(deps.timeoutMs) });
    } catch (err) {
      throw new RentalUnavailable(`${path}: ${(err as Error).message}`);
    }
    const text = await res.text();
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      json = null;
    }
    const obj = json !== null && typeof json === 'object' && !Array.isArray(json) ? (json as Record<string, unknown>) : null;
    if (res.status === 400 || res.status === 401 || res.status === 403) {
      const why = obj ? (typeof obj.detail === 'string' ? obj.detail : JSON.stringify(obj)) : text.slice(0, 200);
      throw new RentalRefused(`${path}: HTTP ${res.status}: ${why}`);
    }
    if (res.status !== 200 || !obj) throw new RentalUnavailable(`${path}: HTTP ${res.status}${text ? `: ${text.slice(0, 200)}` : ''}`);
    if (obj.errno !== undefined && obj.errno !== 0) throw new RentalRefused(`${path}: errno ${String(obj.errno)}: ${String(obj.message ?? '')}`);
    return obj;
  }

  return {
    async quote(energy) {
      const r = await call('GET', '/api/v1/frontend/order/price', { period: deps.period, energy_amount: energy.toString() });
      return int(r.total_price);
    },
    async order(receiveAddress, energy, outTradeNo) {
      const r = await call('POST', '/api/v1/frontend/order', { energy_amount: Number(energy), out_trade_no: outTradeNo, period: deps.period, receive_address: receiveAddress });
      if (typeof r.serial !== 'string' || !r.serial) throw new RentalUnavailable('/api/v1/frontend/order: no serial in the answer');
      return { serial: r.serial, priceSun: int(r.amount), providerBalanceSun: r.balance === undefined ? 0n : int(r.balance) };
    },
    async status(serial) {
      const r = await call('GET', '/api/v1/frontend/order/query', { serial });
      const status = Number(r.status);
      return { filledEnergy: int(r.pay_amount ?? 0), energyAmount: int(r.energy_amount), status, state: ORDER_STATUS[status] ?? `status ${status}`, priceSun: int(r.amount ?? 0) };
    },
    async summary() {
      const r = await call('GET', '/api/v1/frontend/userapi/summary');
      return { totalSun: int(r.total_sum_trx ?? 0), count: Number(r.total_count ?? 0) };
    },
  };
}
