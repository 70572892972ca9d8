import { TronWeb } from 'tronweb';
import { createChain, type Chain, type SignedTransfer } from '@/lib/chain';
import { startDevnetProcess, waitFor } from '@/test/helpers/devnet';

/**
 * Throughput of the devnet child process as the chain layer sees it:
 * transfers accepted per second by broadcasttransaction, and blocks scanned
 * per second for transfers. Bounded: fixed counts, then it stops.
 */

const TRANSFERS = Number(process.env.BENCH_TRANSFERS ?? 1000);
const CONCURRENCY = 16;

async function inParallel<T>(items: T[], fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < items.length) await fn(items[next++]!);
    }),
  );
}

async function buildAll(chain: Chain, key: string): Promise<SignedTransfer[]> {
  const recipients = await Promise.all(Array.from({ length: TRANSFERS }, async () => (await TronWeb.createAccount()).address.base58));
  const signed: SignedTransfer[] = [];
  await inParallel(
    recipients.map((to, i) => ({ to, i })),
    async ({ to, i }) => {
      signed[i] = i % 2 ? await chain.buildSignedUsdtTransfer(key, to, 1_000_000n, 100_000_000n) : await chain.buildSignedTrxTransfer(key, to, 1_000_000n);
    },
  );
  return signed;
}

const perSecond = (count: number, ms: number) => ((count * 1000) / ms).toFixed(0);

async function main(): Promise<void> {
  const devnet = await startDevnetProcess({ blockMs: 200, solidifiedDepth: 1 });
  try {
    const chain = createChain({ fullNodeUrl: devnet.url, apiKey: null, usdtContract: devnet.usdtContract, txExpirationMs: 600_000 });
    const start = await chain.getBlockNumber();
    const signed = await buildAll(chain, devnet.faucetPrivateKey);

    let t0 = performance.now();
    await inParallel(signed, async (s) => {
      await chain.broadcast(s.signedTx);
    });
    const broadcastMs = performance.now() - t0;
    console.log(`accepted ${signed.length} transfers (half TRX, half USDT) in ${broadcastMs.toFixed(0)} ms: ${perSecond(signed.length, broadcastMs)} transfers/s`);

    const last = signed.at(-1)!.txId;
    await waitFor('the last transfer in a block', async () => (await chain.getTransactionStatus(last)).blockNumber, 60_000);
    const end = await chain.getBlockNumber();
    const blocks = end - start + 1;

    t0 = performance.now();
    let found = 0;
    for (let n = start; n <= end; n += 100) found += (await chain.getBlockRangeTransfers(n, Math.min(n + 99, end))).transfers.length;
    const rangeMs = performance.now() - t0;
    console.log(`scanned ${blocks} blocks (${found} transfers) by ranges of 100 in ${rangeMs.toFixed(0)} ms: ${perSecond(blocks, rangeMs)} blocks/s`);

    t0 = performance.now();
    found = 0;
    for (let n = start; n <= end; n++) found += (await chain.getBlockTransfers(n))?.length ?? 0;
    const singleMs = performance.now() - t0;
    console.log(`scanned ${blocks} blocks (${found} transfers) one by one in ${singleMs.toFixed(0)} ms: ${perSecond(blocks, singleMs)} blocks/s`);
    if (found !== signed.length) throw new Error(`expected ${signed.length} transfers, found ${found}`);
  } finally {
    await devnet.stop();
  }
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
