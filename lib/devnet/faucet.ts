import { NETWORKS } from '@/lib/chain';
import { chainConfig } from '@/lib/config';
import type { Currency } from '@/lib/money/tokens';

const PROBE_TTL_MS = 30_000;
const PROBE_TIMEOUT_MS = 1_500;
let probe: { at: number; url: Promise<string | null> } | undefined;

async function probeDevnet(): Promise<string | null> {
  try {
    const { network, fullNodeUrl, usdtContract } = chainConfig();
    if (network !== 'devnet') return null;
    if (usdtContract !== NETWORKS.devnet.usdtContract) return null;
    const res = await fetch(`${fullNodeUrl}/devnet/info`, { signal: AbortSignal.timeout(PROBE_TIMEOUT_MS), cache: 'no-store' });
    const info = res.ok ? ((await res.json()) as { usdtContract?: unknown }) : null;
    return info?.usdtContract === usdtContract ? fullNodeUrl : null;
  } catch {
    return null;
  }
}

/**
 * The devnet's URL when the chain is the local devnet, else null. Settings
 * alone are not trusted (a devnet preset pointed at a real node's URL must
 * never offer free money): the node has to answer the devnet's own endpoint.
 */
export function devnetUrl(): Promise<string | null> {
  if (!probe || Date.now() - probe.at >= PROBE_TTL_MS) probe = { at: Date.now(), url: probeDevnet() };
  return probe.url;
}

/**
 * Sends `amount` (decimal text) of `currency` from the devnet faucet to
 * `address` through the devnet's `POST /devnet/pay` (docs/devnet.md); resolves
 * to the txid once the node accepted it. The one client of that endpoint: the
 * devnet-pay route, `npm start`'s gas funding and the tests all call it (the
 * devnet's own signing send is `sendFromFaucet` in devnet/pay.ts).
 */
export async function payFromFaucet(url: string, transfer: { address: string; amount: string; currency: Currency }): Promise<string> {
  const res = await fetch(`${url}/devnet/pay`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(transfer),
    cache: 'no-store',
  });
  const body = (await res.json().catch(() => ({}))) as { txid?: string; error?: string };
  if (!res.ok || !body.txid) throw new Error(body.error ?? `devnet answered ${res.status}`);
  return body.txid;
}
