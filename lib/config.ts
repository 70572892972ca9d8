import { z } from 'zod';
import { parseIpRule } from './auth/ipAllowList';
import { parseEnv } from './env';
import { parseScaled } from './money/decimal';
import { PERCENT_DECIMALS, RATE_DECIMALS } from './money/tokens';

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

const schema = z.object({
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
  DEMO_API_KEY: z.string().regex(/^\S{20,}$/, 'DEMO_API_KEY must be at least 20 characters, without spaces').optional(),
  // Operations (docs/operations.md).
  METRICS_TOKEN: z.string().regex(/^\S{16,}$/, 'METRICS_TOKEN must be at least 16 characters, without spaces').optional(),
  WORKER_STALE_SECONDS: z.coerce.number().int().min(15).max(86_400).default(120),
  HEALTHZ_REQUIRE_WORKER: z.enum(['true', 'false']).default('false').transform((v) => v === 'true'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
});

export type Config = z.infer<typeof schema>;

/** Validates an environment, listing every bad variable at once. */
export function parseConfig(env: Record<string, string | undefined>): Config {
  return parseEnv(schema, env, 'configuration');
}

let cached: Config | undefined;

export function config(): Config {
  cached ??= parseConfig(process.env);
  return cached;
}

export function publicBaseUrl(c: Config = config()): string {
  return (c.PUBLIC_BASE_URL ?? `http://localhost:${c.PORT}`).replace(/\/$/, '');
}

export function paymentPageBase(c: Config = config()): string {
  return (c.PAYMENT_PAGE_BASE ?? publicBaseUrl(c)).replace(/\/$/, '');
}
