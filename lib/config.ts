import { TronWeb, utils } from 'tronweb';
import { z } from 'zod';
import { parseIpRule } from './ipAllowList';
import { NETWORKS, type NetworkName } from './networks';
import { parseScaled } from './money/decimal';
import { PERCENT_DECIMALS, RATE_DECIMALS } from './money/tokens';

/** A BIP39 phrase whose checksum holds. Here, not in lib/chain: the configuration imports nothing of the domain (issue 35). */
const isValidMnemonic = (phrase: string): boolean => utils.ethersUtils.Mnemonic.isValidMnemonic(phrase.trim());

/**
 * The one configuration module (docs/configuration.md, docs/architecture.md):
 * every environment variable the service reads is declared here, nowhere else
 * reads process.env (test/unit/architecture.test.ts). Sections, each a zod schema
 * validated once, on first use, so a process needs only the sections it uses:
 *
 * - web     `config()`         the web app; the worker reads it too (database, keys, fees)
 * - worker  `workerConfig()`   the worker's loops (scanning, sends, AML, webhooks)
 * - chain   `chainConfig()`    the Tron node (web and worker)
 * - session `sessionConfig()`  the dashboard's next-auth session (web)
 * - devnet  `devnetConfig()`   the local devnet (devnet/cli.ts, the dev runner)
 *
 * Each `parse…(env)` validates an explicit environment (tests, the dev runner
 * building a child's environment); each `…Config()` reads process.env once.
 */

/**
 * Validates environment variables with a zod schema, naming every bad variable
 * in one error. Empty strings count as unset, so `FOO=` falls back to the default.
 */
function parseEnv<S extends z.ZodType>(schema: S, env: Record<string, string | undefined>, what: string): z.output<S> {
  const present = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ''));
  const result = schema.safeParse(present);
  if (!result.success) {
    const lines = result.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`);
    throw new Error(`Invalid ${what}:\n${lines.join('\n')}`);
  }
  return result.data;
}

type Env = Record<string, string | undefined>;

/** One section: parsed from process.env on first use, then kept. */
function section<T>(parse: (env: Env) => T): () => T {
  let cached: { value: T } | undefined;
  return () => (cached ??= { value: parse(process.env) }).value;
}

// Shared by the web (payout estimates) and the worker (gas top-ups, fee limits): one rule, in both sections.
const decimal = (name: string) => z.string().regex(/^\d+(\.\d+)?$/, `${name} must be a non-negative decimal number`);
const gasMargin = {
  /** Margin on the estimated energy cost when funding an address and setting fee_limit. */
  GAS_MARGIN_PERCENT: decimal('GAS_MARGIN_PERCENT').default('20'),
  /**
   * Energy lent or rented beyond a send's estimate (lent energy comes back with the reclaim: lending
   * more costs nothing); a payout's quote counts on the pool only for its energy with this margin.
   */
  ENERGY_MARGIN_PERCENT: decimal('ENERGY_MARGIN_PERCENT').default('10'),
};

// ---------------------------------------------------------------------------------------------
// web
// ---------------------------------------------------------------------------------------------

/** A decimal the money code can use exactly, so a bad value fails at start-up, not at the first invoice. */
const scaledDecimal = (what: string, decimals: number, { positive }: { positive: boolean }) =>
  z.string().refine(
    (v) => {
      try {
        const scaled = parseScaled(v, decimals);
        return !positive || scaled > 0n;
      } catch {
        return false;
      }
    },
    `${what} must be a ${positive ? 'positive' : 'non-negative'} decimal number with at most ${decimals} decimals, like 1 or 0.5`,
  );
const usdRate = (what: string) => scaledDecimal(what, RATE_DECIMALS, { positive: true });
const percent = (what: string) => scaledDecimal(what, PERCENT_DECIMALS, { positive: false });
const optionalUrl = z.string().url().optional();
const BCRYPT_COST = "PASSWORD_HASH_COST must be a whole number from 4 to 31 (bcrypt's cost)";

const webSchema = z.object({
  NODE_ENV: z.enum(['development', 'production', 'test']).default('development'),
  DATABASE_URL: z.string().regex(/^postgres(ql)?:\/\//, 'DATABASE_URL must be a postgres:// URL'),
  PORT: z.coerce.number().int().min(1).max(65535).default(3000),
  HOST: z.string().default('127.0.0.1'),
  PUBLIC_BASE_URL: optionalUrl,
  PAYMENT_PAGE_BASE: optionalUrl,
  MASTER_KEY: z.string().regex(/^[0-9a-f]{64}$/i, 'MASTER_KEY must be 64 hex characters (32 bytes)'),
  MASTER_KEYS_PREVIOUS: z
    .string()
    .regex(/^([0-9a-f]{64})(,[0-9a-f]{64})*$/i, 'MASTER_KEYS_PREVIOUS must be a comma list of 64-hex keys')
    .optional(),
  // Required by the worker and the scripts (lib/merchants/accounts.ts hdMnemonic()); the web
  // process runs without it: it derives addresses from account xpubs (issue 16).
  HD_MNEMONIC: z
    .string()
    .refine((m) => [12, 15, 18, 21, 24].includes(m.trim().split(/\s+/).length), 'HD_MNEMONIC must be a BIP39 phrase of 12-24 words')
    // Every address derives from it: a mistyped word would silently derive other addresses
    // (funds sent to them unreachable with the real phrase), so the BIP39 checksum must hold.
    .refine(isValidMnemonic, 'HD_MNEMONIC is not a valid BIP39 phrase: a word is misspelled or out of place (checksum mismatch)')
    .optional(),
  TRUSTED_PROXIES: z
    .string()
    .default('')
    .transform((v) => v.split(',').map((s) => s.trim()).filter(Boolean))
    .superRefine((rules, ctx) => {
      for (const rule of rules) {
        try {
          parseIpRule(rule);
        } catch (err) {
          ctx.addIssue({ code: 'custom', message: `TRUSTED_PROXIES: ${(err as Error).message}` });
        }
      }
    }),
  RATES_PROVIDER: z.enum(['fixed', 'http']).default('fixed'),
  RATES_FIXED_TRX_USD: usdRate('RATES_FIXED_TRX_USD').default('0.25'),
  RATES_FIXED_USDT_USD: usdRate('RATES_FIXED_USDT_USD').default('1'),
  RATES_HTTP_URL: z.string().url().default('https://api.coingecko.com/api/v3/simple/price?ids=tron,tether&vs_currencies=usd&include_last_updated_at=true'),
  RATES_CACHE_SECONDS: z.coerce.number().int().min(1).default(30),
  RATES_MAX_AGE_SECONDS: z.coerce.number().int().min(1).default(300),
  FORWARDING_FEE_PERCENT: percent('FORWARDING_FEE_PERCENT').default('1'),
  /**
   * The most forwarding one payment can cost, in TRX (docs/worker.md, "Minimum invoice amount"):
   * a TRX forward to a target that is not yet an account burns 1 TRX + 0.1 TRX; a USDT forward to
   * an address holding no USDT, 130,285 energy at 100 sun and 345 bytes at 1,000 sun, with the
   * worker's 20 % gas margin, 16.05 TRX. An invoice must be worth more than that in each token.
   */
  FORWARD_MAX_COST_TRX: scaledDecimal('FORWARD_MAX_COST_TRX', 6, { positive: false }).default('1.1'),
  FORWARD_MAX_COST_USDT_IN_TRX: scaledDecimal('FORWARD_MAX_COST_USDT_IN_TRX', 6, { positive: false }).default('16.05'),
  TOPUP_FEE_PERCENT: percent('TOPUP_FEE_PERCENT').default('1'),
  DEFAULT_EXPIRY_MINUTES: z.coerce.number().int().min(1).max(10080).default(60),
  // Issue 14: limits that keep one client from exhausting the service. See docs/configuration.md.
  INVOICE_CREATE_RATE_PER_MINUTE: z.coerce.number().int().min(1).default(600),
  PUBLIC_PAGE_RATE_PER_MINUTE: z.coerce.number().int().min(1).default(120),
  HTTP_REQUEST_TIMEOUT_SECONDS: z.coerce.number().int().min(1).max(600).default(30),
  /** Web server processes sharing PORT (node:cluster, server.ts); `npm start` sets it to the core count. */
  WEB_CONCURRENCY: z.coerce.number().int().min(1).max(64).default(1),
  DASHBOARD_REAUTH_MINUTES: z.coerce.number().int().min(0).max(480).default(5),
  /**
   * bcrypt's cost for new dashboard password hashes: each step doubles a hash's and a sign-in's CPU
   * (12 is about a third of a second here). The tests' servers use 4 (test/helpers/app.ts, issue 41).
   */
  PASSWORD_HASH_COST: z.coerce.number().int(BCRYPT_COST).min(4, BCRYPT_COST).max(31, BCRYPT_COST).default(12),
  DEMO_API_KEY: z.string().regex(/^\S{20,}$/, 'DEMO_API_KEY must be at least 20 characters, without spaces').optional(),
  // Operations (docs/operations.md).
  METRICS_TOKEN: z.string().regex(/^\S{16,}$/, 'METRICS_TOKEN must be at least 16 characters, without spaces').optional(),
  WORKER_STALE_SECONDS: z.coerce.number().int().min(15).max(86_400).default(120),
  HEALTHZ_REQUIRE_WORKER: z.enum(['true', 'false']).default('false').transform((v) => v === 'true'),
  ...gasMargin,
  // The "payout wallet changed" e-mail (lib/notify/mail.ts); no SMTP_URL, no e-mail.
  SMTP_URL: z.string().optional(),
  MAIL_FROM: z.string().default('no-reply@localhost'),
  /** The demo merchant's dashboard password, read by the seed (scripts/seed.ts). */
  DEMO_DASHBOARD_PASSWORD: z.string().optional(),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
});

export type Config = z.infer<typeof webSchema>;

/** Validates an environment, listing every bad variable at once. */
export function parseConfig(env: Env): Config {
  return parseEnv(webSchema, env, 'configuration');
}

/** The web section (the worker reads it too). */
export const config = section(parseConfig);

export function publicBaseUrl(c: Config = config()): string {
  return (c.PUBLIC_BASE_URL ?? `http://localhost:${c.PORT}`).replace(/\/$/, '');
}

export function paymentPageBase(c: Config = config()): string {
  return (c.PAYMENT_PAGE_BASE ?? publicBaseUrl(c)).replace(/\/$/, '');
}

// ---------------------------------------------------------------------------------------------
// worker
// ---------------------------------------------------------------------------------------------

const bool = z.enum(['true', 'false', '1', '0']).transform((v) => v === 'true' || v === '1');

const workerSchema = z.object({
  /**
   * How soon a payment or payout waiting on the chain (a send's confirmation) is looked at again,
   * and how often the scanner reads the node for a new solidified block unless SCAN_POLL_MS says (ms).
   */
  WORKER_POLL_MS: z.coerce.number().int().min(10).max(60_000).default(1000),
  /**
   * How often the scanner reads the node for a new solidified block (ms; default WORKER_POLL_MS).
   * Each round is a request to the node and, when a block came, a database transaction: reading
   * more often than blocks come only costs (issue 41: the tests read 100 ms blocks every 50 ms).
   */
  SCAN_POLL_MS: z.coerce.number().int().min(10).max(60_000).optional(),
  /**
   * How long a job with nothing to do sleeps when nothing wakes it (ms; default WORKER_POLL_MS): it
   * is woken sooner by work done in its worker, a scanned payment, or a row falling due again
   * (lib/worker/wake.ts). Work another process made (a payout created in the dashboard, a retry let
   * go by another worker) waits for this.
   */
  WORKER_IDLE_MS: z.coerce.number().int().min(10).max(60_000).optional(),
  /** Blocks beyond the node's solidified head to wait before acting (extra reorg safety). */
  SCAN_EXTRA_CONFIRMATIONS: z.coerce.number().int().min(0).max(1000).default(0),
  /** First block to scan when no cursor is stored yet; default: the confirmed head at first start. */
  SCAN_START_BLOCK: z.coerce.number().int().min(0).optional(),
  SCAN_BATCH_BLOCKS: z.coerce.number().int().min(1).max(100).default(50),
  /**
   * While nothing waits for finality (no payment seen at the head and not final, no top-up seen
   * there, no deadline passed and not yet scanned past, the head scanner reading ahead), the scanner
   * of solidified blocks reads once every this many blocks, in one request, not once a block (issue
   * 37); once something waits, once a block again. What only it would find (a payment the head
   * scanner missed) is found up to this many blocks later. 1: once a block always.
   */
  SCAN_IDLE_BLOCKS: z.coerce.number().int().min(1).max(100).default(10),
  /**
   * Issue 24: payments are recorded from the head block and forwarded at once, each send bound to the
   * payment's block (TaPoS) so it can never execute on a fork without the payment; statuses and
   * webhooks still wait until the payment and its forward are solidified. `false` waits for a
   * payment's finality before anything is done with it, and for each send's finality before the next.
   */
  FORWARD_BEFORE_FINALITY: bool.default(true),
  /** Loops of the payments job in this worker, each claiming its own payments (a lease each, as between workers). */
  PAYMENT_WORKERS: z.coerce.number().int().min(1).max(32).default(4),
  /** How often the head of the chain is read for new payments (ms): a block comes every 3 s on mainnet. */
  HEAD_SCAN_POLL_MS: z.coerce.number().int().min(10).max(60_000).default(500),
  /**
   * How often the energy pool's upkeep runs (ms; worker/energy.ts): each round reads the pool from
   * the node several times, so every few seconds spares a provider's request quota (TronGrid) and
   * is fresh enough for the published status and for taking energy back. Tests set it lower.
   */
  ENERGY_POLL_MS: z.coerce.number().int().min(10).max(60_000).default(3_000),
  /**
   * The longest the energy pool's upkeep reuses what it last read of the pool (ms;
   * lib/energy/upkeep.ts, issue 37): it reads the pool again as soon as a send of ours from or to
   * the gas wallet is seen in a block, so this bounds only how late it sees what the service did
   * not do (a stake or delegation made by hand, unstaked TRX becoming withdrawable,
   * the network's totals drifting). Decisions that spend money never use it: they read the node.
   */
  ENERGY_REFRESH_MS: z.coerce.number().int().min(0).max(3_600_000).default(600_000),
  LEASE_SECONDS: z.coerce.number().int().min(5).max(600).default(60),
  /**
   * A singleton job's leader lease (lib/worker/leader.ts): renewed every third of it while its
   * worker runs, so it only matters when that worker dies: then the job stops for up to this long
   * before another worker takes it over. Short, unlike LEASE_SECONDS, which must outlast a step.
   */
  LEADER_LEASE_SECONDS: z.coerce.number().int().min(2).max(600).default(15),
  /** Sends that landed and failed on chain (out of energy, revert) before the payment fails; unsent expired ones do not count. */
  SEND_MAX_ATTEMPTS: z.coerce.number().int().min(1).max(20).default(3),
  /** Backoff before rebuilding a send that expired unsent (gas wallet short, node unreachable): doubles from the base to the max. */
  SEND_RETRY_BASE_MS: z.coerce.number().int().min(100).max(3_600_000).default(5_000),
  SEND_RETRY_MAX_MS: z.coerce.number().int().min(100).max(86_400_000).default(300_000),
  ...gasMargin,
  /**
   * Payments below these amounts are dust: held at the address with the reason, never
   * screened (a check costs more) and never forwarded (the network cost exceeds them).
   */
  /** A payment whose send the node refuses to plan this many times in a row is held with the reason. */
  HOLD_AFTER_REFUSALS: z.coerce.number().int().min(1).max(1000).default(10),
  DUST_THRESHOLD_TRX: decimal('DUST_THRESHOLD_TRX').default('1'),
  DUST_THRESHOLD_USDT: decimal('DUST_THRESHOLD_USDT').default('1'),
  /** A SINGLE invoice paid within this share of the due amount counts as exactly paid. */
  PAYMENT_TOLERANCE_PERCENT: decimal('PAYMENT_TOLERANCE_PERCENT').default('0.5'),
  /** ... but never more than this many USD either way (a large invoice's 0.5 % is real money). */
  PAYMENT_TOLERANCE_MAX_USD: decimal('PAYMENT_TOLERANCE_MAX_USD').default('1'),
  AML_PROVIDER: z.enum(['local', 'http']).default('local'),
  /** Local provider: senders with a high risk score, comma separated. */
  AML_FLAGGED_ADDRESSES: z.string().default(''),
  AML_HTTP_URL: z.string().url().default('https://extrnlapiendpoint.silencatech.com/'),
  AML_ACCESS_ID: z.string().default(''),
  AML_ACCESS_KEY: z.string().default(''),
  AML_TIMEOUT_MS: z.coerce.number().int().min(100).max(120_000).default(30_000),
  AML_CHECK_COST_TRX: decimal('AML_CHECK_COST_TRX').default('1'),
  /**
   * The energy engine (docs/energy.md): `auto` lends USDT sends the gas wallet's staked energy whenever
   * it has staked some; `off` never does (every send burns, as before issue 23).
   */
  ENERGY_POOL: z.enum(['auto', 'off']).default('auto'),
  /** `<energy TRX>:<bandwidth TRX>` the worker stakes for each resource the pool has none of, until a stake of it lands (the devnet's default run; docs/energy.md). */
  ENERGY_POOL_AUTOSTAKE: z.string().regex(/^\d+:\d+$/, 'ENERGY_POOL_AUTOSTAKE must be <energy TRX>:<bandwidth TRX>').optional(),
  /** The most one send may burn for energy; above it the send waits for the pool ("waiting for energy"). */
  ENERGY_MAX_BURN_TRX: decimal('ENERGY_MAX_BURN_TRX').default('30'),
  /**
   * Rented energy (docs/energy.md, "Rented energy"): the base URL of an itrx.io-compatible provider API
   * (the devnet emulates it at its own URL); unset, nothing is rented. Its key and secret sign orders.
   */
  ENERGY_RENTAL_URL: z.string().url('ENERGY_RENTAL_URL must be a URL').optional(),
  ENERGY_RENTAL_API_KEY: z.string().default(''),
  ENERGY_RENTAL_API_SECRET: z.string().default(''),
  /** The most one send's rental may cost; a dearer quote is not rented (the send burns within ENERGY_MAX_BURN_TRX, or waits). */
  ENERGY_RENTAL_MAX_TRX: decimal('ENERGY_RENTAL_MAX_TRX').default('15'),
  /** The provider's rental period (1H, 1D, 3D, 30D); the energy returns to the provider by itself at its end. */
  ENERGY_RENTAL_PERIOD: z.enum(['1H', '1D', '3D', '30D']).default('1H'),
  /** How long an order may stay unfilled on chain before the send burns instead (within ENERGY_MAX_BURN_TRX). */
  ENERGY_RENTAL_WAIT_SECONDS: z.coerce.number().int().min(1).max(86_400).default(120),
  /** A provider request that does not answer in time counts as the provider down. */
  ENERGY_RENTAL_TIMEOUT_MS: z.coerce.number().int().min(100).max(120_000).default(10_000),
  WEBHOOK_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(10_000),
  /** Lets webhooks reach private, loopback and link-local addresses (local runs and tests only). */
  WEBHOOK_ALLOW_PRIVATE: bool.default(false),
  /** A delivery stuck in SENDING this long was cut off by a crash: sent again if its POST never began, else closed as failed (spec: sent once). */
  WEBHOOK_STALE_SECONDS: z.coerce.number().int().min(10).default(60),
  /** Merchants with webhook retries on: the wait before the first retry; each next wait doubles (docs/webhooks.md). */
  WEBHOOK_RETRY_BASE_MS: z.coerce.number().int().min(1).default(300_000),
  /** ... and no wait grows past this. */
  WEBHOOK_RETRY_MAX_MS: z.coerce.number().int().min(1).default(12 * 60 * 60_000),
  /** ... and no retry is made later than this after the first attempt. */
  WEBHOOK_RETRY_WINDOW_HOURS: z.coerce.number().min(0).default(72),
}).superRefine((s, ctx) => {
  // An idle read is planned for the head SCAN_IDLE_BLOCKS blocks on and reads every block since the last, at most
  // SCAN_BATCH_BLOCKS: with no more room than that, a read on time or a little late found a full batch, which means
  // "there may be more", and read again at once, two requests where one was planned (issue 37). Half leaves a read
  // late by a whole idle span one request.
  if (s.SCAN_IDLE_BLOCKS > s.SCAN_BATCH_BLOCKS / 2) {
    ctx.addIssue({
      code: 'custom',
      path: ['SCAN_IDLE_BLOCKS'],
      message: `SCAN_IDLE_BLOCKS (${s.SCAN_IDLE_BLOCKS}) must be at most half of SCAN_BATCH_BLOCKS (${s.SCAN_BATCH_BLOCKS}): an idle read covers the blocks since the last read, and a full batch is read again at once; lower SCAN_IDLE_BLOCKS or raise SCAN_BATCH_BLOCKS (at most 100)`,
    });
  }
});

export type WorkerSettings = z.output<typeof workerSchema>;

export function parseWorkerSettings(env: Env): WorkerSettings {
  return parseEnv(workerSchema, env, 'worker configuration');
}

/** The worker section: only the worker process reads it. */
export const workerConfig = section(parseWorkerSettings);

// ---------------------------------------------------------------------------------------------
// chain
// ---------------------------------------------------------------------------------------------

export interface ChainConfig {
  fullNodeUrl: string;
  /** Sent as TRON-PRO-API-KEY (TronGrid). */
  apiKey: string | null;
  /** Base58 address of the TRC-20 USDT contract. */
  usdtContract: string;
  /** How long a built transaction stays valid, from the head block's time. */
  txExpirationMs: number;
  /** At most this many requests a second from this process to the node (TRON_MAX_REQUESTS_PER_SECOND); null or absent: no limit. */
  maxRequestsPerSecond?: number | null;
}

const tronAddress = (name: string) => z.string().refine((a) => a.startsWith('T') && TronWeb.isAddress(a), `${name} must be a base58 Tron address (T...)`);

const chainSchema = z.object({
  TRON_NETWORK: z.enum(Object.keys(NETWORKS) as [NetworkName, ...NetworkName[]], { message: `TRON_NETWORK must be one of ${Object.keys(NETWORKS).join(', ')}` }).default('devnet'),
  TRON_FULL_NODE_URL: z.string().url('TRON_FULL_NODE_URL must be a URL like https://api.trongrid.io').optional(),
  TRON_API_KEY: z.string().min(1).optional(),
  TRON_USDT_CONTRACT: tronAddress('TRON_USDT_CONTRACT').optional(),
  // java-tron refuses expirations more than 24 h past its head block.
  TRON_TX_EXPIRATION_MS: z.coerce
    .number()
    .int('TRON_TX_EXPIRATION_MS must be whole milliseconds')
    .min(10_000, 'TRON_TX_EXPIRATION_MS must be at least 10000')
    .max(86_400_000, 'TRON_TX_EXPIRATION_MS must be at most 86400000 (24 h)')
    .default(60_000),
  // A provider's per-second limit (TronGrid: 15-30 per key, docs/chain.md); per process.
  TRON_MAX_REQUESTS_PER_SECOND: z.coerce.number().positive('TRON_MAX_REQUESTS_PER_SECOND must be a positive number of requests a second').max(10_000).optional(),
});

/** What the chain layer needs, plus the TRON_NETWORK preset the rest defaults from. */
export interface ChainSettings extends ChainConfig {
  network: NetworkName;
}

/** Reads the chain settings from an environment, naming every bad variable at once. */
export function parseChainConfig(env: Env): ChainSettings {
  const c = parseEnv(chainSchema, env, 'chain configuration');
  const network = NETWORKS[c.TRON_NETWORK];
  return {
    network: c.TRON_NETWORK,
    fullNodeUrl: c.TRON_FULL_NODE_URL ?? network.fullNodeUrl,
    apiKey: c.TRON_API_KEY ?? null,
    usdtContract: c.TRON_USDT_CONTRACT ?? network.usdtContract,
    txExpirationMs: c.TRON_TX_EXPIRATION_MS,
    maxRequestsPerSecond: c.TRON_MAX_REQUESTS_PER_SECOND ?? null,
  };
}

/** The chain section (web and worker). */
export const chainConfig = section(parseChainConfig);

// ---------------------------------------------------------------------------------------------
// session
// ---------------------------------------------------------------------------------------------

const sessionSchema = z.object({
  NEXTAUTH_SECRET: z.string().min(32, 'NEXTAUTH_SECRET must be at least 32 characters (e.g. 32 random bytes, base64url)'),
  /** The dashboard's public origin; next-auth builds its redirects from it. */
  NEXTAUTH_URL: z.url().optional(),
});

export type SessionEnv = z.output<typeof sessionSchema>;

/** The dashboard session's settings; kept apart from next-auth so the server can check them at start-up. */
export function parseSessionEnv(env: Env): SessionEnv {
  return parseEnv(sessionSchema, env, 'dashboard session configuration');
}

/** The session section (web only). */
export const sessionConfig = section(parseSessionEnv);

/** The dashboard's public origin: NEXTAUTH_URL, or else PUBLIC_BASE_URL (docs/configuration.md). */
export function dashboardBaseUrl(): string {
  return (sessionConfig().NEXTAUTH_URL ?? publicBaseUrl()).replace(/\/$/, '');
}

/**
 * next-auth reads its origin from process.env.NEXTAUTH_URL on every request, and without it
 * answers with http://localhost:3000 (issue 27, finding 6): it is given the origin this
 * configuration resolves, so its redirects and URLs name the service as configured.
 */
export function exportNextAuthUrl(): void {
  process.env.NEXTAUTH_URL = dashboardBaseUrl();
}

// ---------------------------------------------------------------------------------------------
// devnet
// ---------------------------------------------------------------------------------------------

/** Mainnet's share of USDT transfers, about 0.7: the devnet's traffic mix unless told otherwise (devnet/traffic.ts). */
export const DEVNET_TRAFFIC_DEFAULT_USDT_SHARE = 0.7;

const devnetSchema = z.object({
  DEVNET_HOST: z.string().min(1).default('127.0.0.1'),
  DEVNET_PORT: z.coerce.number().int().min(0, 'DEVNET_PORT must be 0..65535 (0 picks a free port)').max(65535, 'DEVNET_PORT must be 0..65535').default(9090),
  DEVNET_DATA_DIR: z.string().min(1).default('./data/devnet'),
  DEVNET_BLOCK_MS: z.coerce.number().int('DEVNET_BLOCK_MS must be a whole number of milliseconds').min(5, 'DEVNET_BLOCK_MS must be at least 5').default(3000),
  DEVNET_SOLIDIFIED_DEPTH: z.coerce.number().int().min(0, 'DEVNET_SOLIDIFIED_DEPTH must be 0 or more blocks').default(19),
  DEVNET_MNEMONIC: z
    .string()
    .refine((m) => m.trim().split(/\s+/).length >= 12, 'DEVNET_MNEMONIC must be a BIP39 phrase of 12-24 words')
    .default('test test test test test test test test test test test junk'),
  DEVNET_FAUCET_PRIVATE_KEY: z
    .string()
    .regex(/^(0x)?[0-9a-fA-F]{64}$/, 'DEVNET_FAUCET_PRIVATE_KEY must be 64 hex characters')
    .transform((k) => k.replace(/^0x/, '').toLowerCase())
    .optional(),
  // A replica serving the node API some blocks behind, and a balancer alternating between head and replica; off unless a port is set (0 picks one).
  DEVNET_REPLICA_PORT: z.coerce.number().int().min(0, 'DEVNET_REPLICA_PORT must be 0..65535').max(65535, 'DEVNET_REPLICA_PORT must be 0..65535').optional(),
  DEVNET_BALANCER_PORT: z.coerce.number().int().min(0, 'DEVNET_BALANCER_PORT must be 0..65535').max(65535, 'DEVNET_BALANCER_PORT must be 0..65535').optional(),
  DEVNET_REPLICA_LAG: z.coerce.number().int().min(0, 'DEVNET_REPLICA_LAG must be 0 or more blocks').default(0),
  // Mainnet-shaped traffic in every block (devnet/traffic.ts; POST /devnet/traffic changes it while running).
  DEVNET_TRAFFIC_TX_PER_BLOCK: z.coerce.number().int().min(0, 'DEVNET_TRAFFIC_TX_PER_BLOCK must be 0 or more transactions').max(20_000, 'DEVNET_TRAFFIC_TX_PER_BLOCK must be at most 20000').default(0),
  DEVNET_TRAFFIC_USDT_SHARE: z.coerce.number().min(0, 'DEVNET_TRAFFIC_USDT_SHARE must be between 0 and 1').max(1, 'DEVNET_TRAFFIC_USDT_SHARE must be between 0 and 1').default(DEVNET_TRAFFIC_DEFAULT_USDT_SHARE),
  DEVNET_URL: z.string().url('DEVNET_URL must be a URL like http://127.0.0.1:9090').optional(),
});

export type DevnetEnv = z.infer<typeof devnetSchema>;

/** Validates the devnet's environment, naming every bad variable at once. */
export function parseDevnetEnv(env: Env): DevnetEnv {
  return parseEnv(devnetSchema, env, 'devnet configuration');
}

/** The devnet section (devnet/cli.ts). */
export const devnetConfig = section(parseDevnetEnv);

/**
 * The variables each section reads: the dev runner (scripts/childEnv.ts) hands each process those
 * of the sections it uses and no others (issue 27, finding 6).
 */
export const SECTION_VARIABLES: Record<'web' | 'worker' | 'chain' | 'session' | 'devnet', readonly string[]> = {
  web: Object.keys(webSchema.shape),
  worker: Object.keys(workerSchema.shape),
  chain: Object.keys(chainSchema.shape),
  session: Object.keys(sessionSchema.shape),
  devnet: Object.keys(devnetSchema.shape),
};

/** Where a running devnet answers: DEVNET_URL, else DEVNET_HOST:DEVNET_PORT. */
export function devnetUrl(env: DevnetEnv = devnetConfig()): string {
  return env.DEVNET_URL ?? `http://${env.DEVNET_HOST}:${env.DEVNET_PORT}`;
}
