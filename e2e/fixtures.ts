import { test as base } from '@playwright/test';
import { startApp, type TestApp } from '../test/helpers/app';
import { startDevnetProcess, type DevnetProcess } from '../test/helpers/devnet';

export interface Stack {
  devnet: DevnetProcess;
  app: TestApp;
}

/**
 * One real stack per Playwright worker: a devnet process and the production web
 * server on a fresh database pointed at it. Specs seed merchants through `app`.
 */
export const test = base.extend<object, { stack: Stack }>({
  stack: [
    async ({}, use) => {
      const devnet = await startDevnetProcess({ blockMs: 200, solidifiedDepth: 2 });
      const app = await startApp({ TRON_FULL_NODE_URL: devnet.url, TRON_USDT_CONTRACT: devnet.usdtContract });
      await use({ devnet, app });
      await app.stop();
      await devnet.stop();
    },
    { scope: 'worker' },
  ],
});

export { expect } from '@playwright/test';

/** Where specs save screenshots that CI keeps as artifacts. */
export const screenshotPath = (name: string) => `e2e/artifacts/screenshots/${name}.png`;
