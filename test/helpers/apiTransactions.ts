import assert from 'node:assert/strict';
import type { TestApp } from './app';

/** Spec 2.2's transaction types, the only ones /v1/api answers (docs/api.md, "Transactions"). */
export const SPEC_TRANSACTION_TYPES = ['PAYMENT', 'TRANSFER', 'TOPUP', 'ACTIVATION'] as const;
const POOL_TYPES = ['DELEGATE', 'UNDELEGATE', 'STAKE', 'UNSTAKE', 'WITHDRAW'] as const;

export interface ApiTransactionsSeen {
  /** How many transactions /v1/api listed, by type, over all the merchants. */
  listed: Record<string, number>;
  /** How many of the merchants' rows are the energy pool's operations, by type (none of them listed). */
  poolOperations: Record<string, number>;
  /** The type /v1/api answered for each hash it listed. */
  typeOf: Map<string, string>;
}

const tally = (counts: Record<string, number>, key: string) => {
  counts[key] = (counts[key] ?? 0) + 1;
};

/**
 * Every transaction of each merchant through the merchant API, as a client generated from the spec
 * reads it (issue 34): every page of GET /transaction/list and GET /transaction/{trn_hash} for each;
 * every `type` is one of the spec's, and each of the energy pool's operations on the merchant's
 * invoices (rows the worker wrote) answers exactly as an unknown hash does. What was seen, for the
 * caller to check that the money movements it expects were there.
 */
export async function assertApiTransactionTypes(app: TestApp, merchants: readonly { id: number; key: string }[]): Promise<ApiTransactionsSeen> {
  const seen: ApiTransactionsSeen = { listed: {}, poolOperations: {}, typeOf: new Map() };
  for (const { id, key } of merchants) {
    const unknown = await app.api('/transaction/0000000000000000000000000000000000000000000000000000000000000000', key);
    assert.deepEqual([unknown.status, unknown.json], [404, { detail: 'Address not found.' }]);
    const listed: { trn_hash: string; type: string }[] = [];
    for (let offset = 0; ; offset += 300) {
      const res = await app.api(`/transaction/list?limit=300&offset=${offset}&ordering=created_at`, key);
      assert.equal(res.status, 200, res.text);
      listed.push(...res.json.results);
      if (res.json.next === null) {
        assert.equal(listed.length, res.json.count, `merchant ${id}: every page read`);
        break;
      }
    }
    for (const t of listed) {
      assert.ok((SPEC_TRANSACTION_TYPES as readonly string[]).includes(t.type), `merchant ${id}: ${t.trn_hash} is listed as ${t.type}`);
      tally(seen.listed, t.type);
      seen.typeOf.set(t.trn_hash, t.type);
      const one = await app.api(`/transaction/${t.trn_hash}`, key);
      assert.equal(one.status, 200, `${t.trn_hash}: ${one.text}`);
      assert.ok((SPEC_TRANSACTION_TYPES as readonly string[]).includes(one.json.type), `merchant ${id}: GET ${t.trn_hash} answers ${one.json.type}`);
    }
    const pool = await app.prisma.transaction.findMany({ where: { merchantId: id, type: { in: [...POOL_TYPES] } }, select: { trnHash: true, type: true } });
    const listedHashes = new Set(listed.map((t) => t.trn_hash));
    for (const op of pool) {
      tally(seen.poolOperations, op.type);
      assert.ok(!listedHashes.has(op.trnHash), `merchant ${id}: the pool's ${op.type} ${op.trnHash} is not listed`);
      const res = await app.api(`/transaction/${op.trnHash}`, key);
      assert.deepEqual([res.status, res.json], [unknown.status, unknown.json], `merchant ${id}: the pool's ${op.type} ${op.trnHash} answers as an unknown hash`);
    }
  }
  return seen;
}

/** Each confirmed send of the merchants for `purpose`, and the type /v1/api listed it with. */
export async function listedTypesOf(app: TestApp, seen: ApiTransactionsSeen, merchants: readonly { id: number }[], purpose: string): Promise<(string | undefined)[]> {
  const rows = await app.prisma.transaction.findMany({ where: { merchantId: { in: merchants.map((m) => m.id) }, sendPurpose: purpose as never, sendState: 'CONFIRMED' }, select: { trnHash: true } });
  return rows.map((r) => seen.typeOf.get(r.trnHash));
}
