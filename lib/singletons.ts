import type { RestartCounts } from '@/lib/operations/restarts';
import type { NodeRequestState } from '@/lib/chain/meter';
import type { SendLook } from '@/lib/sends/steps';
import type { ScannedHeads } from '@/lib/db/chainCursors';
import type { PrismaClient } from '@/lib/generated/prisma/client';
import type { Balances } from '@/lib/invoices/unconfirmedBalances';
import type { ChainFacts } from '@/lib/operations/metrics';
import type { RateCache } from '@/lib/rates/source';
import type { WorkerSettings } from '@/lib/config';

/**
 * Every piece of process-wide state of lib/, in one table: the only module allowed to hold any
 * (test/unit/architecture.test.ts, rule (l)). A web process evaluates lib/ more than once: server.ts's
 * bundle (dist/server.mjs: the API's router, the rate limits at its edge) and Next's bundle, which
 * has a copy per layer (route handlers and server actions, server-side rendering); Next's dev
 * server evaluates it again after each change. A module-level variable would then exist once per
 * copy, and a limiter, a cache or a pool would silently be split. Here each value is made once and
 * kept on `globalThis` under one registry symbol, so every copy of lib/ in the process finds the
 * same one (test/unit/singletons.test.ts loads a module twice to prove it).
 *
 * What is shared must be usable by every copy, so the table holds data, not code: strings,
 * numbers, bigints, bytes, dates, and maps, arrays, promises and plain objects of those
 * (`Shareable`, checked by the compiler below). Each copy has its own copy of the packages Next
 * bundles and of lib/'s own classes: a curve point made by one copy's @noble/curves is refused by
 * the other's (`ProjectivePoint expected`: every invoice creation through the second channel was a
 * 500, issue 34), and an error thrown by one copy's object is no `instanceof AppError` in the
 * other (a 503 would be a 500). An object with methods (a chain client, a rate source, a limiter,
 * a cache of curve points) is made per copy with `derived()`, keyed by the code it is made from;
 * the state such an object needs shared across copies (the rate provider's quotes) is data here.
 * The one exception is the database client: its pool must be one per process, and its runtime
 * (`@prisma/client`, `pg`) is loaded from node_modules by every copy, so its errors are one class.
 *
 * A value that is replaced rather than changed in place is kept in a `Cell`. A value made from
 * code rather than state (the API's router from its route table, the OpenAPI document, next-auth's
 * options, the chain client) is kept per evaluation of that code with `derived()`, so that under
 * `npm run dev` an edit, which Next evaluates again, is served, where a process-wide value would
 * keep the old one, and so that no copy is handed another copy's objects.
 */

export interface Cell<T> {
  value: T;
}

interface Singletons {
  /**
   * lib/db/client.ts `db()`: the database client, and under it the pg pool (`sqlPool`). Holds code
   * (the one exception): the pool must be one per process, and what throws and answers under it
   * is `@prisma/client`'s runtime and `pg`, which every copy loads from node_modules (Next keeps
   * them external), so their classes are the same for every copy.
   */
  db: PrismaClient;
  /** lib/db/client.ts: the name of each Prisma statement run as a prepared statement, by its text: one for the process, as the pool under every copy's client is. */
  prismaStatementNames: Map<string, string>;
  /** lib/rates `rateSource()`: the HTTP provider's last quotes and the fetch under way, one for the process. */
  rateQuotes: RateCache;
  /** `derived()`: values made from code, per evaluation of that code (a copy reaches only its own). */
  derived: WeakMap<object, unknown>;
  /** lib/auth/passwords.ts: the hash an unknown e-mail is checked against, by bcrypt cost, made at the first miss (cost 12's is written out). */
  dummyPasswordHashes: Map<number, Promise<string>>;
  /** lib/auth/authenticate.ts: when this process last wrote each API key's last_used_at. */
  apiKeyLastUsed: Map<string, number>;
  /** lib/invoices/service.ts: the invoice address indexes this process has taken from the sequence, per database. */
  invoiceIndexBlocks: WeakMap<PrismaClient, { spare: number[]; refill: Promise<void> | null }>;
  /** lib/invoices/unconfirmedBalances.ts: the payment page's unconfirmed balance reads, per address, for a few seconds. */
  unconfirmedBalances: Map<string, { at: number; value: Promise<Balances | null> }>;
  /** lib/energy/status.ts: the rental provider's quote for the published status, once a minute. */
  energyQuotes: WeakMap<WorkerSettings, { at: number; priceSun: bigint | null }>;
  /** lib/sends/gas.ts: the shortfall last alerted per address whose gas went below zero (one ALERT per shortfall). */
  negativeGasAlerted: Map<string, bigint>;
  /** lib/operations/metrics.ts: the chain facts /metrics shows, read at most every 15 s. */
  metricsChainFacts: Cell<{ at: number; facts: ChainFacts | null } | undefined>;
  /** lib/merchants/accounts.ts: the gas wallet's address, from account 0's xpub. */
  gasWallet: Cell<string | undefined>;
  /** lib/devnet/faucet.ts: whether the node is the local devnet, asked every 30 s. */
  devnetProbe: Cell<{ at: number; url: Promise<string | null> } | undefined>;
  /** lib/operations/restarts.ts: restart counts from the runner or the cluster primary, for /healthz and /metrics. */
  restartCounts: Cell<RestartCounts | undefined>;
  /** lib/chain/meter.ts: this process's requests to the node by endpoint, and the provider's throttling kept. */
  nodeRequests: NodeRequestState;
  /** lib/sends/steps.ts: what this process last learnt of each send it follows, by txid, and when (issue 37). */
  sendLooks: Map<string, SendLook>;
  /** lib/payments/invoiceSends.ts: when this process found each attempt's recipient fit (no contract, not frozen), by payment, purpose, attempt and address (issue 37). */
  sendChecksPassed: Map<string, number>;
  /** lib/sends/steps.ts: the scanners' cursors as last read, by database client, so a round of follows reads them once (issue 37). */
  scannedHeadsRead: WeakMap<PrismaClient, { at: number; read: Promise<ScannedHeads | null> }>;
}

type Primitive = string | number | bigint | boolean | symbol | null | undefined | void;

/**
 * True when every copy of lib/ can use a `T` made by another: no function anywhere in it, so no
 * object of one copy's classes (a curve point, a client, an error). Maps, promises, bytes and
 * dates are the runtime's own classes, one for the whole process; a WeakMap's keys are only
 * identities, so its values alone are checked.
 */
export type Shareable<T> = [ShareableParts<T>] extends [true] ? true : false;
type ShareableParts<T> = T extends Primitive
  ? true
  : T extends (...args: never[]) => unknown
    ? false
    : T extends Uint8Array | Date
      ? true
      : T extends Promise<infer U>
        ? ShareableParts<U>
        : T extends ReadonlyMap<infer K, infer V>
          ? ShareableParts<K> | ShareableParts<V>
          : T extends WeakMap<object, infer V>
            ? ShareableParts<V>
            : T extends readonly (infer E)[]
              ? ShareableParts<E>
              : T extends object
                ? { [P in keyof T]-?: ShareableParts<T[P]> }[keyof T]
                : false;

/** The entries that hold code, each for its reason (the comments at the table). */
type HoldsCode = 'db' | 'derived';
type Checked = Exclude<keyof Singletons, HoldsCode>;
type NotShareable = { [K in Checked]: Shareable<Singletons[K]> extends true ? never : K }[Checked];
/**
 * The compiler's check of the rule above: when an entry other than `HoldsCode` is not
 * `Shareable`, this fails to compile, naming the entry (`true` is not assignable to it).
 */
export const TABLE_HOLDS_ONLY_DATA: [NotShareable] extends [never] ? true : NotShareable = true;

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
 * The value made from `code` (a function, class or table of the module that makes it, a new
 * object at each evaluation of that module), made once per evaluation: code evaluated again, as
 * Next's dev server does after an edit, gets a value of its own instead of the one made from the
 * old code, and each copy of lib/ in a process (see above) gets objects of its own classes.
 */
export function derived<T>(code: object, make: () => T): T {
  const values = singleton('derived', () => new WeakMap());
  if (!values.has(code)) values.set(code, make());
  return values.get(code) as T;
}
