/**
 * What scripts/run.ts hands each child process and prints (issue 27, finding 6): each process
 * gets the variables of the configuration sections it reads (lib/config.ts, SECTION_VARIABLES)
 * and the system's, nothing else, and `npm start` prints no secret. Pure functions of the
 * runner's environment; test/run/run-secrets.test.ts checks them on a real run, reading each child's
 * environment from /proc.
 */

import { DEVNET_RENTAL_API_KEY, DEVNET_RENTAL_API_SECRET } from '@/devnet/rentalAccount';
import { SECTION_VARIABLES } from '@/lib/config';

type Env = NodeJS.ProcessEnv;

/** How Node, tsx and the OS find their way: not the service's settings, so every child keeps them. */
const SYSTEM_VARS = new Set(['PATH', 'HOME', 'TMPDIR', 'TMP', 'TEMP', 'LANG', 'LC_ALL', 'TZ', 'NO_COLOR', 'FORCE_COLOR']);
/** Node's own (NODE_ENV, NODE_OPTIONS, NODE_EXTRA_CA_CERTS, ...). */
const SYSTEM_PREFIXES = ['NODE_'];

/** The variables of `env` that are the system's or named in `sections`, less `except`. */
function only(env: Env, sections: (keyof typeof SECTION_VARIABLES)[], options: { except?: string[]; prefixes?: string[] } = {}): Env {
  const names = new Set(sections.flatMap((s) => SECTION_VARIABLES[s]));
  for (const name of options.except ?? []) names.delete(name);
  const prefixes = [...SYSTEM_PREFIXES, ...(options.prefixes ?? [])];
  return Object.fromEntries(Object.entries(env).filter(([name]) => names.has(name) || SYSTEM_VARS.has(name) || prefixes.some((p) => name.startsWith(p)))) as Env;
}

/** The demo merchant's key and password: read by the seed only (scripts/seed.ts), never by a server. */
const DEMO_SECRETS = ['DEMO_API_KEY', 'DEMO_DASHBOARD_PASSWORD'];

/**
 * The devnet's environment: its own section of lib/config.ts (DEVNET_*) and the system's. No
 * database, master key, mnemonic or session secret: it is a test chain and signs with its own keys.
 */
export function devnetEnv(env: Env): Env {
  return only(env, ['devnet']);
}

/**
 * The web's environment: the web, chain and session sections (and Next's own NEXT_* settings),
 * without the mnemonic, the root of every fund (the internet-facing process never signs, issue 16),
 * the demo secrets, or the worker's (the energy rental provider's API secret, AML credentials).
 */
export function webEnv(env: Env): Env {
  return only(env, ['web', 'chain', 'session'], { except: ['HD_MNEMONIC', ...DEMO_SECRETS], prefixes: ['NEXT_'] });
}

/** The worker's environment: the web section (database, keys, fees), its own and the chain's; it holds the mnemonic (it signs), not the session secret or the demo secrets. */
export function workerEnv(env: Env): Env {
  return only(env, ['web', 'worker', 'chain'], { except: DEMO_SECRETS });
}

/** The seed's (scripts/seed.ts, a one-off before the others start): the web section, with the demo secrets and the mnemonic (the demo's payout wallet derives from it). */
export function seedEnv(env: Env): Env {
  return only(env, ['web']);
}

/**
 * Settings only a local run (`npm run dev` on the devnet) turns on: webhooks to local receivers
 * (a test server on localhost). `npm start` keeps the production refusal of private addresses
 * unless the operator sets WEBHOOK_ALLOW_PRIVATE itself (docs/webhooks.md).
 */
export function applyLocalRunDefaults(env: Env, run: { dev: boolean; useDevnet: boolean }): void {
  if (run.dev && run.useDevnet) env.WEBHOOK_ALLOW_PRIVATE ??= 'true';
  // The devnet run stakes an energy pool from the gas wallet (docs/energy.md), so a newcomer's first USDT payment uses it.
  if (run.useDevnet) env.ENERGY_POOL_AUTOSTAKE ??= '1500000:100000';
  // ... and rents energy from the devnet's emulation of the provider (devnet/rental.ts) when the pool cannot lend.
  if (run.useDevnet && env.TRON_FULL_NODE_URL) {
    env.ENERGY_RENTAL_URL ??= env.TRON_FULL_NODE_URL;
    env.ENERGY_RENTAL_API_KEY ??= DEVNET_RENTAL_API_KEY;
    env.ENERGY_RENTAL_API_SECRET ??= DEVNET_RENTAL_API_SECRET;
  }
}

/**
 * The lines printed once the service answers. `npm run dev` shows the demo key and password (made
 * up for this machine, or chosen with DEMO_API_KEY / DEMO_DASHBOARD_PASSWORD); `npm start` names
 * where they come from but never prints them: a start-up log is kept and read by others.
 */
export function startBanner(env: Env, run: { dev: boolean; useDevnet: boolean; base: string }): string {
  const { base } = run;
  const key = env.DEMO_API_KEY;
  const password = env.DEMO_DASHBOARD_PASSWORD;
  const lines = [`  Service:       ${base}`];
  if (key && run.dev) {
    lines.push(`  Demo API key:  ${key}`, `  Try:           curl -H "Authorization: ${key}" ${base}/v1/api/merchant`);
  } else if (key) {
    lines.push('  Demo API key:  the value of DEMO_API_KEY (not printed)');
  }
  const signIn = key && password ? (run.dev ? `sign in as demo@example.com / ${password}, or sign up` : 'sign in as demo@example.com with DEMO_DASHBOARD_PASSWORD, or sign up') : 'sign up or sign in';
  lines.push(`  Dashboard:     ${base}/dashboard  (${signIn})`);
  // The demo store's second member (lib/merchants/demo.ts), to try roles with: same password, role finance.
  if (key && password) lines.push(`  Second member: finance@example.com (role finance), same password${run.dev ? `: ${password}` : ''}`);
  if (run.useDevnet) lines.push('  Devnet:        pay an invoice with: npm run devnet -- pay <address> <amount> <TRX|USDT>');
  return `\n${lines.join('\n')}\n`;
}
