import { TronWeb } from 'tronweb';
import { z } from 'zod';
import type { Fault, FaultSpec } from './faults';
import type { ReorgRequest } from './node';
import { MUTABLE_PARAMETERS, type MutableParameter } from './params';

/**
 * Request bodies of the dev controls (POST /devnet/...), validated with
 * messages that name the field. Integers may come as JSON numbers or
 * decimal strings (the CLI sends strings); money is in base units (sun,
 * USDT units), never a decimal.
 */

const address = z
  .string()
  .refine((a) => TronWeb.isAddress(a), 'must be a Tron address (T... or 41...)')
  .transform((a) => TronWeb.address.toHex(a).toLowerCase());

const whole = (what: string, min = 0) =>
  z
    .union([z.number(), z.string().regex(/^\d+$/, `${what} must be a whole number`)])
    .transform(Number)
    .refine((n) => Number.isSafeInteger(n) && n >= min, `${what} must be a whole number, at least ${min}`);

const units = (what: string) =>
  z
    .union([z.number().int().nonnegative(), z.string().regex(/^\d+$/, `${what} must be a whole number of base units`)])
    .transform((v) => BigInt(v));

const match = {
  from: address.optional(),
  to: address.optional(),
  count: whole('count', 1).optional(),
};

/** A fault without from/to applies to the next broadcast only unless a count says otherwise; one with an address to every match until cleared. */
function spec<T extends { from?: string; to?: string; count?: number }>(body: T) {
  const from = body.from ?? null;
  const to = body.to ?? null;
  return { from, to, count: body.count ?? (from || to ? null : 1) };
}

export const dropSchema = z.object(match).strict().transform((b): FaultSpec => ({ kind: 'drop', ...spec(b) }));
export const delaySchema = z
  .object({ ...match, blocks: whole('blocks', 1) })
  .strict()
  .transform((b): FaultSpec => ({ kind: 'delay', ...spec(b), blocks: b.blocks }));
export const failSchema = z
  .object({ ...match, result: z.enum(['OUT_OF_ENERGY', 'REVERT']) })
  .strict()
  .transform((b): FaultSpec => ({ kind: 'fail', ...spec(b), result: b.result }));
/** java-tron's refusal of TRX sent to a contract (TransferActuator): the default refusal of a refuse fault. */
export const TRX_TO_CONTRACT_REFUSAL = 'Contract validate error : Cannot transfer TRX to a smartContract.';
export const refuseSchema = z
  .object({ ...match, code: z.string().regex(/^[A-Z_]+$/, 'code is a java-tron response code, e.g. CONTRACT_VALIDATE_ERROR').optional(), message: z.string().min(1).optional() })
  .strict()
  .transform((b): FaultSpec => ({ kind: 'refuse', ...spec(b), code: b.code ?? 'CONTRACT_VALIDATE_ERROR', message: b.message ?? TRX_TO_CONTRACT_REFUSAL }));
export const lagSchema = z.object({ blocks: whole('blocks') }).strict();
/** The next `count` node-API requests (default 1) lose their connection unanswered. */
export const resetSchema = z.object({ count: whole('count', 1).optional() }).strict().transform((b) => ({ count: b.count ?? 1 }));

const txids = z.union([z.array(z.string()), z.string().transform((s) => s.split(',').filter(Boolean))]).pipe(z.array(z.string().regex(/^[0-9a-fA-F]{64}$/, 'txids are 64 hex characters')));
export const reorgSchema = z
  .object({ depth: whole('depth', 1).optional(), fromBlock: whole('fromBlock', 1).optional(), leaveOut: txids.optional(), order: txids.optional() })
  .strict()
  .refine((b) => (b.depth === undefined) !== (b.fromBlock === undefined), 'give depth or fromBlock')
  .transform((b): ReorgRequest => b);

/**
 * POST /devnet/fault/throttle: for `seconds`, every node-API request is answered as a provider over
 * its rate limit answers (TronGrid: `{"Error": "The key exceeds the frequency limit(30), and the
 * query server is suspended for 30s"}`), with `status` (429, 403 or 503) and, unless `retryAfter` is
 * false, a Retry-After header of the seconds left. 0 seconds ends it.
 */
export const throttleSchema = z
  .object({
    seconds: whole('seconds', 0),
    status: z.union([z.literal(429), z.literal(403), z.literal(503)]).optional(),
    retryAfter: z.union([z.boolean(), z.enum(['true', 'false']).transform((v) => v === 'true')]).optional(),
  })
  .strict()
  .transform((b) => ({ seconds: b.seconds, status: b.status ?? 429, retryAfter: b.retryAfter ?? true }));

/** POST /devnet/solidify takes no fields: every block up to the head becomes final. */
export const solidifySchema = z.object({}).strict();
/** POST /devnet/finality: `held` true stops finality where it is, false lets it advance again. */
export const finalitySchema = z
  .object({ held: z.union([z.boolean(), z.enum(['true', 'false']).transform((v) => v === 'true')], { message: 'held must be true or false' }) })
  .strict();
/** POST /devnet/traffic: transactions per block (0 stops the traffic) and, optionally, the USDT share (kept when left out). */
export const trafficSchema = z
  .object({
    txPerBlock: whole('txPerBlock').refine((n) => n <= 20_000, 'txPerBlock must be at most 20000'),
    usdtShare: z.union([z.number(), z.string().regex(/^\d*\.?\d+$/, 'usdtShare must be a number from 0 to 1')]).transform(Number).refine((n) => n >= 0 && n <= 1, 'usdtShare must be a number from 0 to 1').optional(),
  })
  .strict();

export const setBalanceSchema = z
  .object({ address, balanceSun: units('balanceSun').optional(), usdtUnits: units('usdtUnits').optional() })
  .strict()
  .refine((b) => b.balanceSun !== undefined || b.usdtUnits !== undefined, 'give balanceSun and/or usdtUnits');

/** POST /devnet/usdt/blacklist: `frozen` false takes the address off the list (Tether's removeBlackList). */
export const blacklistSchema = z
  .object({ address, frozen: z.union([z.boolean(), z.enum(['true', 'false']).transform((v) => v === 'true')]).optional() })
  .strict()
  .transform((b) => ({ address: b.address, usdtFrozen: b.frozen ?? true }));

export const chainParametersSchema = z
  .object(Object.fromEntries(MUTABLE_PARAMETERS.map((name) => [name, units(name).optional()])) as Record<MutableParameter, z.ZodOptional<ReturnType<typeof units>>>)
  .strict()
  .refine((b) => Object.values(b).some((v) => v !== undefined), `give one of ${MUTABLE_PARAMETERS.join(', ')}`)
  .refine((b) => b.energyFeeSun !== 0n && b.bandwidthFeeSun !== 0n, 'prices must be above 0')
  .refine((b) => b.networkEnergyWeightTrx !== 0n, 'networkEnergyWeightTrx must be above 0');

/** A fault as the API shows it: base58 addresses. */
export function faultJson(fault: Fault): Record<string, unknown> {
  const b58 = (hex: string | null) => (hex ? TronWeb.address.fromHex(hex) : null);
  return { ...fault, from: b58(fault.from), to: b58(fault.to) };
}

export function issues(error: z.ZodError): string {
  return error.issues.map((i) => (i.path.length ? `${i.path.join('.')}: ${i.message}` : i.message)).join('; ');
}
