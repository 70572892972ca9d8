import { z } from 'zod';
import { parseEnv } from '@/lib/env';

const bool = z.enum(['true', 'false', '1', '0']).transform((v) => v === 'true' || v === '1');
const decimal = (name: string) => z.string().regex(/^\d+(\.\d+)?$/, `${name} must be a non-negative decimal number`);

const schema = z.object({
  WORKER_POLL_MS: z.coerce.number().int().min(10).max(60_000).default(1000),
  /** Blocks beyond the node's solidified head to wait before acting (extra reorg safety). */
  SCAN_EXTRA_CONFIRMATIONS: z.coerce.number().int().min(0).max(1000).default(0),
  /** First block to scan when no cursor is stored yet; default: the confirmed head at first start. */
  SCAN_START_BLOCK: z.coerce.number().int().min(0).optional(),
  SCAN_BATCH_BLOCKS: z.coerce.number().int().min(1).max(100).default(50),
  LEASE_SECONDS: z.coerce.number().int().min(5).max(600).default(60),
  /** Sends that landed and failed on chain (out of energy, revert) before the payment fails; unsent expired ones do not count. */
  SEND_MAX_ATTEMPTS: z.coerce.number().int().min(1).max(20).default(3),
  /** Backoff before rebuilding a send that expired unsent (gas wallet short, node unreachable): doubles from the base to the max. */
  SEND_RETRY_BASE_MS: z.coerce.number().int().min(100).max(3_600_000).default(5_000),
  SEND_RETRY_MAX_MS: z.coerce.number().int().min(100).max(86_400_000).default(300_000),
  /** Margin on the estimated energy cost when funding an address and setting fee_limit. */
  GAS_MARGIN_PERCENT: decimal('GAS_MARGIN_PERCENT').default('20'),
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
  WEBHOOK_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(10_000),
  /** Lets webhooks reach private, loopback and link-local addresses (local runs and tests only). */
  WEBHOOK_ALLOW_PRIVATE: bool.default(false),
  /** A delivery stuck in SENDING this long was cut off by a crash: sent again if its POST never began, else closed as failed (spec: sent once). */
  WEBHOOK_STALE_SECONDS: z.coerce.number().int().min(10).default(60),
});

export type WorkerSettings = z.output<typeof schema>;

export function parseWorkerSettings(env: Record<string, string | undefined>): WorkerSettings {
  return parseEnv(schema, env, 'worker configuration');
}
