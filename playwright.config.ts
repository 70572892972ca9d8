import { existsSync } from 'node:fs';
import { defineConfig, devices } from '@playwright/test';

// Debian's chromium, not a Playwright download (no downloads here). The flags keep
// it from reaching for Google services, which this machine's network refuses.
// Its headless shell (Debian's chromium-headless-shell, what Playwright itself runs headless) when
// installed: the full browser spent 262 s of CPU on the specs, the shell 161 s, and the lane took
// 318 s against 273 (issue 41, docs/testing.md, "The lanes' CPU by process").
const HEADLESS_SHELL = '/usr/bin/chromium-headless-shell';
const chromium = process.env.CHROMIUM_PATH ?? (existsSync(HEADLESS_SHELL) ? HEADLESS_SHELL : '/usr/bin/chromium');

export default defineConfig({
  testDir: 'e2e',
  // One folder per build, so parallel runs in one checkout do not wipe each other's results.
  outputDir: `e2e/artifacts/results${process.env.NEXT_DIST_DIR ?? ''}`,
  // Three stacks at once (each worker its own devnet, web server and, for the files that ask, worker):
  // alone, one stack left the two cores 44 % idle and the specs took 321 s; two took 233 s, 13 %
  // idle (2026-11-28). Since then the specs wait more on the chain than on the cores (a third of
  // the cores idle at two), and three took 186 s against 205 s (2026-12-04; issue 41,
  // docs/testing.md, "The chain lane's last files"). npm test asks for two while another npm test
  // runs on the machine. Files that share a worker's options share its stack.
  workers: 3,
  // Three minutes a test: each page a spec visits is also checked by axe-core at two sizes, and
  // CI's 2-core machine runs beside four other stacks (load above 20).
  timeout: 180_000,
  expect: { timeout: 15_000 },
  reporter: [['list']],
  use: {
    ...devices['Desktop Chrome'],
    // A screenshot of a failed test only, and no trace: recording a trace of every test (to keep the
    // failed ones') and a screenshot at every end cost chromium and Playwright a fifth of the lane's
    // CPU (issue 41). The specs' own screenshots (e2e/artifacts/screenshots) are taken as before;
    // `npx playwright test --trace retain-on-failure` records traces when a failure needs one.
    screenshot: 'only-on-failure',
    trace: 'off',
    launchOptions: {
      executablePath: chromium,
      args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    },
  },
});
