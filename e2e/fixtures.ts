import { createServer } from 'node:http';
import { test as base } from '@playwright/test';
import { createChain } from '../lib/chain';
import { deriveAccount } from '../lib/chain/keys';
import { freePort, startApp, TEST_MNEMONIC, type TestApp } from '../test/helpers/app';
import { startDevnetProcess, type DevnetProcess } from '../test/helpers/devnet';
import { assertReconciled } from '../test/helpers/reconcile';
import { startWorker } from '../test/helpers/worker';

export interface Stack {
  devnet: DevnetProcess;
  app: TestApp;
  /** A local webhook receiver (requests land in `hooks`); only with the worker. */
  hookUrl: string;
  hooks: { body: string; signature: string }[];
}

/**
 * One real stack per Playwright worker: a devnet process and the production web
 * server on a fresh database pointed at it. Files that `test.use({ withWorker: true })`
 * also get the real worker (with a funded gas wallet), so payments made on the
 * devnet are detected, forwarded and reported exactly as in production; when
 * such a stack is torn down, after its last spec, the books are reconciled
 * against the chain (`npm run reconcile`'s proof, docs/worker.md) and a mismatch
 * fails the run. (Without the worker nothing is booked, so there is nothing to prove.)
 */
export const test = base.extend<object, { withWorker: boolean; stack: Stack }>({
  withWorker: [false, { scope: 'worker', option: true }],
  stack: [
    async ({ withWorker }, use) => {
      const devnet = await startDevnetProcess({ blockMs: 200, solidifiedDepth: 2 });
      const app = await startApp({ TRON_FULL_NODE_URL: devnet.url, TRON_USDT_CONTRACT: devnet.usdtContract });
      const hooks: Stack['hooks'] = [];
      const receiver = createServer((req, res) => {
        let body = '';
        req.on('data', (d) => (body += d));
        req.on('end', () => {
          hooks.push({ body, signature: String(req.headers['x-webhook-signature']) });
          res.end('ok');
        });
      });
      const port = await freePort();
      await new Promise<void>((r) => receiver.listen(port, '127.0.0.1', r));
      let worker: ReturnType<typeof startWorker> | undefined;
      if (withWorker) {
        const gas = deriveAccount(TEST_MNEMONIC, 0, 'gas').address;
        await devnet.pay(gas, '10000', 'TRX');
        worker = startWorker(app.env, devnet);
      }
      await use({ devnet, app, hookUrl: `http://127.0.0.1:${port}/hook`, hooks });
      try {
        // While the worker still runs, so payments in progress can close first.
        if (worker) await assertReconciled(app.prisma, createChain({ fullNodeUrl: devnet.url, apiKey: null, usdtContract: devnet.usdtContract, txExpirationMs: 60_000 }), 30_000);
      } finally {
        await worker?.stop();
        receiver.close();
        await app.stop();
        await devnet.stop();
      }
    },
    // Set-up and teardown start processes and, with the worker, wait for the books to balance.
    { scope: 'worker', timeout: 180_000 },
  ],
});

export { expect } from '@playwright/test';

/** Where specs save screenshots that CI keeps as artifacts. */
export const screenshotPath = (name: string) => `e2e/artifacts/screenshots/${name}.png`;

/** Pays `address` from the devnet faucet, as a customer's wallet would. */
export async function devnetPay(stack: Stack, address: string, amount: string, currency: 'TRX' | 'USDT'): Promise<void> {
  await stack.devnet.pay(address, amount, currency);
}
