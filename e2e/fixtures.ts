import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { createRequire } from 'node:module';
import { test as base, expect, type Page } from '@playwright/test';
import type { AxeResults } from 'axe-core';
import { createChain } from '../lib/chain';
import { deriveAccount } from '../lib/chain/keys';
import type { NetworkName } from '../lib/networks';
import { freePort, startApp, TEST_MNEMONIC, type TestApp } from '../test/helpers/app';
import { startDevnetProcess, type DevnetProcess } from '../test/helpers/devnet';
import { startSmtpSink, type SmtpSink } from '../test/helpers/smtp';
import { assertReconciled } from '../test/helpers/reconcile';
import { startWorker } from '../test/helpers/worker';

export interface Stack {
  devnet: DevnetProcess;
  app: TestApp;
  /** A local webhook receiver (requests land in `hooks`); only with the worker. */
  hookUrl: string;
  hooks: { body: string; signature: string }[];
  /** The SMTP server the web server and the worker send the merchants' e-mails to; only with `withSmtp`. */
  smtp: SmtpSink | null;
}

/**
 * One real stack per Playwright worker: a devnet process and the production web
 * server on a fresh database pointed at it. Files that `test.use({ withWorker: true })`
 * also get the real worker (with a funded gas wallet), so payments made on the
 * devnet are detected, forwarded and reported exactly as in production; when
 * such a stack is torn down, after its last spec, the books are reconciled
 * against the chain (`npm run reconcile`'s proof, docs/worker.md) and a mismatch
 * fails the run. (Without the worker nothing is booked, so there is nothing to prove.)
 *
 * `network` is TRON_NETWORK as an operator sets it (docs/chain.md): the web server and the worker
 * still use the devnet's node and USDT contract (TRON_FULL_NODE_URL, TRON_USDT_CONTRACT), and the
 * preset names the network everything else is shown for (a block explorer's links). `withSmtp`
 * gives both processes SMTP_URL, a local sink (`stack.smtp`) keeping every e-mail sent.
 * `strictReauth` sets DASHBOARD_REAUTH_MINUTES=0: every sign-in counts as old, so each money-moving
 * change in the dashboard asks for the password (and second factor) again.
 *
 * Each distinct set of these options is a stack of its own (Playwright starts a new worker for it),
 * and a stack's start and end cost a browser run about as much as a short spec: a spec that needs
 * something of its own asks for it here, as an option, so the specs that ask alike share a stack
 * (issue 41, docs/testing.md, "The browser lane's stacks").
 */
export const test = base.extend<object, { withWorker: boolean; solidifiedDepth: number; network: NetworkName; withSmtp: boolean; strictReauth: boolean; stack: Stack }>({
  withWorker: [false, { scope: 'worker', option: true }],
  strictReauth: [false, { scope: 'worker', option: true }],
  network: ['devnet', { scope: 'worker', option: true }],
  withSmtp: [false, { scope: 'worker', option: true }],
  // How many blocks below the head are final: 2 makes payments final at once; a file that watches a payment confirm sets more.
  solidifiedDepth: [2, { scope: 'worker', option: true }],
  stack: [
    async ({ withWorker, solidifiedDepth, network, withSmtp, strictReauth }, use) => {
      const devnet = await startDevnetProcess({ blockMs: 200, solidifiedDepth });
      const smtp = withSmtp ? await startSmtpSink() : null;
      // The worker is started with the web server's settings (app.env): these reach both.
      const app = await startApp({
        TRON_FULL_NODE_URL: devnet.url,
        TRON_USDT_CONTRACT: devnet.usdtContract,
        ...(network !== 'devnet' && { TRON_NETWORK: network }),
        ...(smtp && { SMTP_URL: smtp.url, MAIL_FROM: 'payments@pay.example.com' }),
        ...(strictReauth && { DASHBOARD_REAUTH_MINUTES: '0' }),
      });
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
      await use({ devnet, app, hookUrl: `http://127.0.0.1:${port}/hook`, hooks, smtp });
      try {
        // While the worker still runs, so payments in progress can close first.
        if (worker) await assertReconciled(app.prisma, createChain({ fullNodeUrl: devnet.url, apiKey: null, usdtContract: devnet.usdtContract, txExpirationMs: 60_000 }), 30_000);
      } finally {
        await worker?.stop();
        receiver.close();
        smtp?.close();
        await app.stop();
        await devnet.stop();
      }
    },
    // Set-up and teardown start processes and, with the worker, wait for the books to balance.
    { scope: 'worker', timeout: 180_000 },
  ],
});

export { expect };

/** The two sizes every page is checked at (issue 26): a laptop and a phone. */
export const DESKTOP = { width: 1280, height: 800 } as const;
export const PHONE = { width: 390, height: 844 } as const;
/** For specs that run each test at both sizes (`test.use({ viewport, isMobile })` per size). */
export const SIZES = [
  { name: 'desktop', viewport: DESKTOP, isMobile: false },
  { name: 'phone', viewport: PHONE, isMobile: true },
] as const;

// axe-core from node_modules (a devDependency), evaluated in the page: nothing is fetched, and an
// evaluated script is not an inline <script>, so no page's Content-Security-Policy is loosened for it.
const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

interface Violation {
  id: string;
  impact: string | null | undefined;
  help: string;
  nodes: { target: string; html: string; summary: string }[];
}

async function axeViolations(page: Page): Promise<Violation[]> {
  if (!(await page.evaluate(() => 'axe' in window))) await page.evaluate(AXE_SOURCE);
  // Every rule axe-core runs by default (WCAG 2.x A and AA, best practices), none turned off, and
  // every violation with all its elements. `resultTypes: ['violations']` spares axe-core the unique
  // selector of every element that passed a rule (its API's section on performance: the costly
  // part of a run), and only what is reported crosses back from the page, not the whole result
  // (every passing and inapplicable rule): the browser lane alone spent 361-375 CPU s against
  // 384 before, about 4 % (issue 41, docs/testing.md, "What a pair spends").
  return page.evaluate(async () => {
    const { violations } = await (window as unknown as { axe: { run: (ctx: Document, options: { resultTypes: string[] }) => Promise<AxeResults> } }).axe.run(document, { resultTypes: ['violations'] });
    return violations.map((v) => ({
      id: v.id,
      impact: v.impact,
      help: v.help,
      nodes: v.nodes.map((n) => ({ target: n.target.join(' '), html: n.html.slice(0, 200), summary: n.failureSummary ?? '' })),
    }));
  });
}

/**
 * Runs axe-core on the page as it is now and expects no violation (issue 26: "axe-core on every
 * page of the browser suite, 0 violations"). Specs call it on every page and state they visit.
 * The page is checked at its own size and, unless the spec already runs at both sizes
 * (`otherSize: false`), at the other one of DESKTOP and PHONE too, then put back: colour,
 * hidden-or-not and layout rules can differ between them. A failure lists each rule, its help and
 * the elements, and attaches the whole list to the report.
 */
export async function expectAccessible(page: Page, what: string, { otherSize = true }: { otherSize?: boolean } = {}): Promise<void> {
  const own = page.viewportSize() ?? DESKTOP;
  const sizes = [own, ...(otherSize ? [own.width > PHONE.width ? PHONE : DESKTOP] : [])];
  const found: { size: string; violations: Violation[] }[] = [];
  for (const size of sizes) {
    if (size !== own) await page.setViewportSize(size);
    // A resize re-lays the page out; let it settle before reading colours and boxes.
    await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
    found.push({ size: `${size.width}x${size.height}`, violations: await axeViolations(page) });
  }
  if (otherSize) await page.setViewportSize(own);
  const failing = found.filter((f) => f.violations.length > 0);
  if (failing.length > 0) {
    await test.info().attach(`axe-${what}`, { body: JSON.stringify(failing, null, 2), contentType: 'application/json' });
  }
  const text = failing
    .flatMap((f) => f.violations.map((v) => `[${f.size}] ${v.id} (${v.impact}): ${v.help}\n${v.nodes.map((n) => `    ${n.target}: ${n.html}\n      ${n.summary.replaceAll('\n', '\n      ')}`).join('\n')}`))
    .join('\n');
  expect(text, `axe-core violations on ${what}`).toBe('');
}

/** For a spec that runs at both sizes itself: axe-core at the size of the run only. */
export const expectAccessibleHere = (page: Page, what: string) => expectAccessible(page, what, { otherSize: false });

/** Where specs save screenshots that CI keeps as artifacts. */
export const screenshotPath = (name: string) => `e2e/artifacts/screenshots/${name}.png`;

/**
 * A screenshot at the page's own size as `name`, and at the other one of DESKTOP and PHONE as
 * `name-phone` (or `name-desktop`), the size then put back: the specs that walk a flow at one size
 * still leave what each screen looks like on a phone (issue 38), as axe-core checks both.
 */
export async function screenshotBothSizes(page: Page, name: string, { fullPage = true }: { fullPage?: boolean } = {}): Promise<void> {
  const own = page.viewportSize() ?? DESKTOP;
  const other = own.width > PHONE.width ? { size: PHONE, suffix: 'phone' } : { size: DESKTOP, suffix: 'desktop' };
  await page.screenshot({ path: screenshotPath(name), fullPage });
  await page.setViewportSize(other.size);
  await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
  await page.screenshot({ path: screenshotPath(`${name}-${other.suffix}`), fullPage });
  await page.setViewportSize(own);
}

/** Pays `address` from the devnet faucet, as a customer's wallet would. */
export async function devnetPay(stack: Stack, address: string, amount: string, currency: 'TRX' | 'USDT'): Promise<void> {
  await stack.devnet.pay(address, amount, currency);
}

/**
 * A 10 USD TRX sale paid with 40 TRX and completed by the worker, and a 12.5 TRX refund of it made
 * through the API without an address: the refund's answer, whose `claim_url` the customer opens.
 */
export async function refundedSale(stack: Stack, key: string): Promise<{ sale: { id: number; address: string }; refund: { id: number; claim_url: string } }> {
  const sale = (await stack.app.api('/payment/create', key, { method: 'POST', body: { type: 'SINGLE', amount: 10, currencies: ['TRX'] } })).json;
  await devnetPay(stack, sale.address, '40', 'TRX');
  await expect.poll(async () => (await stack.app.api(`/payment/get/${sale.id}`, key)).json.status, { timeout: 60_000 }).toBe('COMPLETED');
  const created = await stack.app.api(`/payment/${sale.id}/refund`, key, { method: 'POST', body: { currency: 'TRX', amount: 12.5 } });
  expect(created.status, created.text).toBe(200);
  return { sale, refund: created.json };
}
