import type { RestartCounts } from '@/lib/operations/restarts';
import type { Chain } from '@/lib/chain/types';
import type { HDNode, PublicNode } from '@/lib/chain/keys';
import type { PrismaClient } from '@/lib/generated/prisma/client';
import type { Balances } from '@/lib/invoices/unconfirmedBalances';
import type { ChainFacts } from '@/lib/operations/metrics';
import type { RateLimiter } from '@/lib/rateLimit';
import type { RateSource } from '@/lib/rates/source';
import type { RentalClient } from '@/lib/energy/rental';
import type { WorkerSettings } from '@/lib/config';

/**
 * Every piece of process-wide state of lib/, in one table: the only module allowed to hold any
 * (test/architecture.test.ts, rule (l)). A web process evaluates lib/ twice, once for server.ts
 * (the API's router, the rate limits at its edge) and once inside Next's bundle (pages, the
 * dashboard's routes); Next's dev server evaluates it again after each change. A module-level
 * variable would then exist once per copy, and a limiter, a cache or a pool would silently be
 * split. Here each value is made once and kept on `globalThis` under one registry symbol, so
 * every copy of lib/ in the process finds the same one (test/singletons.test.ts loads a module
 * twice to prove it).
 *
 * A value that is replaced rather than changed in place is kept in a `Cell`. A value made from
 * code rather than state (the API's router from its route table, the OpenAPI document, next-auth's
 * options) is kept per evaluation of that code with `derived()`, so that under `npm run dev` an
 * edit, which Next evaluates again, is served, where a process-wide value would keep the old one.
 */

export interface Cell<T> {
  value: T;
}

interface Singletons {
  /** lib/db/client.ts `db()`: the database client, and under it the pg pool (`sqlPool`). */
  db: PrismaClient;
  /** lib/rates `rateSource()`: the USD rates, with the HTTP provider's cache. */
  rateSource: RateSource;
  /** lib/chain `chain()`: the Tron node client from TRON_* settings. */
  chain: Chain;
  /** `derived()`: values made from code, per evaluation of that code. */
  derived: WeakMap<object, unknown>;
  /** lib/invoices/creationRate.ts: the per-key creation limit (counted in PostgreSQL; this is its client). */
  creationLimiter: RateLimiter;
  /** lib/auth/authenticate.ts: when this process last wrote each API key's last_used_at. */
  apiKeyLastUsed: Map<string, number>;
  /** lib/invoices/service.ts: the invoice address indexes this process has taken from the sequence, per database. */
  invoiceIndexBlocks: WeakMap<PrismaClient, { spare: number[]; refill: Promise<void> | null }>;
  /** lib/invoices/unconfirmedBalances.ts: the payment page's unconfirmed balance reads, per address, for a few seconds. */
  unconfirmedBalances: Map<string, { at: number; value: Promise<Balances | null> }>;
  /** lib/chain/keys.ts: the seed of each mnemonic (PBKDF2 is the slow part of a derivation). */
  hdRoots: Map<string, HDNode>;
  /** lib/chain/keys.ts: the public derivation node of each xpub and role. */
  publicNodes: Map<string, PublicNode>;
  /** lib/energy/status.ts: the rental provider's quote for the published status, once a minute. */
  energyQuotes: WeakMap<WorkerSettings, { at: number; priceSun: bigint | null }>;
  /** lib/energy/rentals.ts: the configured rental provider's client. */
  rentalClients: WeakMap<WorkerSettings, RentalClient>;
  /** lib/operations/metrics.ts: the chain facts /metrics shows, read at most every 15 s. */
  metricsChainFacts: Cell<{ at: number; facts: ChainFacts | null } | undefined>;
  /** lib/merchants/accounts.ts: the gas wallet's address, from account 0's xpub. */
  gasWallet: Cell<string | undefined>;
  /** lib/devnet/faucet.ts: whether the node is the local devnet, asked every 30 s. */
  devnetProbe: Cell<{ at: number; url: Promise<string | null> } | undefined>;
  /** lib/operations/restarts.ts: restart counts from the runner or the cluster primary, for /healthz and /metrics. */
  restartCounts: Cell<RestartCounts | undefined>;
}

const REGISTRY = Symbol.for('tron-invoicing.singletons');

/** The process's value for `key`, made by `make` the first time any copy of lib/ asks for it. */
export function singleton<K extends keyof Singletons>(key: K, make: () => Singletons[K]): Singletons[K] {
  const holder = globalThis as unknown as Record<symbol, Partial<Singletons> | undefined>;
  const values = (holder[REGISTRY] ??= {});
  return (values[key] ??= make()) as Singletons[K];
}

/** A cell of the table, empty at first. */
export function cell<K extends { [P in keyof Singletons]: Singletons[P] extends Cell<infer T> ? (undefined extends T ? P : never) : never }[keyof Singletons]>(key: K): Singletons[K] {
  return singleton(key, () => ({ value: undefined }) as Singletons[K]);
}

/**
 * The value made from `code` (a function or table of the module that makes it, a new object at
 * each evaluation of that module), made once per evaluation: code evaluated again, as Next's dev
 * server does after an edit, gets a value of its own instead of the one made from the old code.
 */
export function derived<T>(code: object, make: () => T): T {
  const values = singleton('derived', () => new WeakMap());
  if (!values.has(code)) values.set(code, make());
  return values.get(code) as T;
}
