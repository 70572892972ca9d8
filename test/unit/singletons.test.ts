import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { secp256k1 } from '@noble/curves/secp256k1';
import type { Shareable } from '@/lib/singletons';
import type { RateLimiter } from '@/lib/rateLimit';
import type { Chain } from '@/lib/chain/types';

/**
 * lib/singletons.ts keeps lib/'s process-wide state for every copy of lib/ in the process (a web
 * process evaluates lib/ once for server.ts and once in Next's bundle). Here modules are
 * evaluated twice for real, as separate module instances (a different query string is another
 * module to Node's loader), and must still share their state.
 */
describe('process-wide singletons (lib/singletons.ts)', () => {
  it('gives two evaluations of the registry the same value, made once', async () => {
    const [first, second] = await Promise.all(['first', 'second'].map(async (copy) => (await import(`../../lib/singletons.ts?copy=${copy}`)) as typeof import('../../lib/singletons')));
    assert.ok(first && second);
    assert.notEqual(first.singleton, second.singleton, 'two module instances');
    let made = 0;
    const a = first.singleton('apiKeyLastUsed', () => (made++, new Map([['k', 1]])));
    const b = second.singleton('apiKeyLastUsed', () => (made++, new Map()));
    assert.equal(a, b);
    assert.equal(made, 1);
    first.cell('gasWallet').value = 'TExample';
    assert.equal(second.cell('gasWallet').value, 'TExample');
    first.cell('gasWallet').value = undefined;
  });

  it('refuses in the table, when the project is type-checked, what one copy of lib/ cannot use from another', () => {
    // TABLE_HOLDS_ONLY_DATA in lib/singletons.ts fails to compile for an entry these verdicts call false.
    type Point = ReturnType<typeof secp256k1.ProjectivePoint.fromHex>;
    const verdicts: [
      Shareable<Map<string, { point: Point; chainCode: Uint8Array }>>,
      Shareable<RateLimiter>,
      Shareable<{ value: Chain | undefined }>,
      Shareable<Map<string, { at: number; value: Promise<{ trxSun: bigint } | null> }>>,
      Shareable<{ current?: { quotes: Map<string, { rateUsd: string; asOf: Date }> }; inflight?: Promise<void> }>,
      Shareable<WeakMap<object, { spare: number[]; bytes: Uint8Array }>>,
    ] = [false, false, false, true, true, true];
    assert.deepEqual(verdicts, [false, false, false, true, true, true]);
  });

  it('gives two evaluations of a module with state the same state: the database client, the rate source, the chain client', async () => {
    process.env.DATABASE_URL ??= 'postgres://unused@127.0.0.1/unused';
    process.env.MASTER_KEY ??= '11'.repeat(32);
    process.env.RATES_PROVIDER ??= 'fixed';
    const clients = await Promise.all(['a', 'b'].map(async (copy) => (await import(`../../lib/db/client.ts?copy=${copy}`)) as typeof import('../../lib/db/client')));
    assert.notEqual(clients[0]!.db, clients[1]!.db, 'two module instances');
    assert.equal(clients[0]!.db(), clients[1]!.db());
    const rates = await Promise.all(['a', 'b'].map(async (copy) => (await import(`../../lib/rates/index.ts?copy=${copy}`)) as typeof import('../../lib/rates')));
    assert.equal(rates[0]!.rateSource(), rates[1]!.rateSource());
    // Before lib/singletons.ts the chain client was a module variable: each copy made its own.
    const chains = await Promise.all(['a', 'b'].map(async (copy) => (await import(`../../lib/chain/index.ts?copy=${copy}`)) as typeof import('../../lib/chain')));
    assert.equal(chains[0]!.chain(), chains[1]!.chain());
    await clients[0]!.db().$disconnect();
  });

  it('keeps a value made from code once per evaluation of that code, so a module Next evaluates again after an edit serves the edit', async () => {
    const copies = await Promise.all(['a', 'b'].map(async (copy) => (await import(`../../lib/openapi/document.ts?copy=${copy}`)) as typeof import('../../lib/openapi/document')));
    const first = copies[0]!.openApiDocument();
    assert.equal(copies[0]!.openApiDocument(), first, 'made once for one evaluation');
    const second = copies[1]!.openApiDocument();
    // A process-wide cell gave the second evaluation the first one's document: the old code's.
    assert.notEqual(second, first, 'the module evaluated again made its own');
    assert.deepEqual(second, first);
  });
});
