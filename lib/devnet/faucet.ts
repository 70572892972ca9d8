import { NETWORKS } from '@/lib/chain';
import { chainConfig } from '@/lib/config';
import type { Currency } from '@/lib/money/tokens';
import { cell } from '@/lib/singletons';

const PROBE_TTL_MS = 30_000;
const PROBE_TIMEOUT_MS = 1_500;

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
  const probe = cell('devnetProbe');
  if (!probe.value || Date.now() - probe.value.at >= PROBE_TTL_MS) probe.value = { at: Date.now(), url: probeDevnet() };
  return probe.value.url;
}

const PAY_ATTEMPTS = 5;

/**
 * Sends `amount` (decimal text) of `currency` from the devnet faucet to
 * `address` through the devnet's `POST /devnet/pay` (docs/devnet.md); resolves
 * to the txid once the node accepted it. The one client of that endpoint: the
 * devnet-pay route, `npm start`'s gas funding and the tests all call it (the
 * devnet's own signing send is `sendFromFaucet` in devnet/pay.ts).
 *
 * A connection lost before the answer (a kept-alive socket the devnet closed as
 * the request went out, on a busy machine) is sent again under the same
 * `request_id`, which the devnet answers with the first payment's txid: the
 * faucet pays once whichever attempt reached it.
 */
export async function payFromFaucet(url: string, transfer: { address: string; amount: string; currency: Currency }): Promise<string> {
  const body = JSON.stringify({ ...transfer, request_id: globalThis.crypto.randomUUID() });
  for (let attempt = 1; ; attempt++) {
    let res: Response;
    try {
      res = await fetch(`${url}/devnet/pay`, { method: 'POST', headers: { 'content-type': 'application/json' }, body, cache: 'no-store' });
    } catch (err) {
      // fetch rejects with a TypeError only when no answer came (the connection, not the devnet, failed).
      if (!(err instanceof TypeError) || attempt >= PAY_ATTEMPTS) throw err;
      await new Promise((ok) => setTimeout(ok, 200 * attempt));
      continue;
    }
    const reply = (await res.json().catch(() => ({}))) as { txid?: string; error?: string };
    if (!res.ok || !reply.txid) throw new Error(reply.error ?? `devnet answered ${res.status}`);
    return reply.txid;
  }
}
