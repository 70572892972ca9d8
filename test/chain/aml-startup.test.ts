import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { TronWeb } from 'tronweb';
import { createChain, type Chain } from '@/lib/chain';
import { deriveAccount } from '@/lib/chain/keys';
import { freePort, startApp, TEST_MNEMONIC, type TestApp } from '../helpers/app';
import { startDevnetProcess, waitFor, type DevnetProcess } from '../helpers/devnet';
import { assertReconciled } from '../helpers/reconcile';
import { startWorker, type WorkerProcess } from '../helpers/worker';

const ID = 'probe-id';
const KEY = 'probe-key';

/**
 * Issue 13, case 10: with AML_PROVIDER=http the worker proves its credentials at start-up
 * with one authenticated request. The provider is a real HTTP server in this process that
 * speaks the AMLBot-style protocol of lib/aml/http.ts (form POST, token = md5(hash:key:id)).
 */
describe('AML credentials are checked when the worker starts', () => {
  let devnet: DevnetProcess;
  let app: TestApp;
  let chain: Chain;
  let provider: Server;
  let providerUrl: string;
  let mode: 'normal' | 'outage' = 'normal';
  const requests: Record<string, string>[] = [];
  const workers: WorkerProcess[] = [];
  const gasWallet = deriveAccount(TEST_MNEMONIC, 0, 'gas');

  const start = (accessId: string, accessKey: string) => {
    const w = startWorker(app.env, devnet, { AML_PROVIDER: 'http', AML_HTTP_URL: providerUrl, AML_ACCESS_ID: accessId, AML_ACCESS_KEY: accessKey, AML_TIMEOUT_MS: '2000' });
    workers.push(w);
    return w;
  };
  const exitsWithin = (w: WorkerProcess, ms: number) => Promise.race([w.exited(), new Promise<'running'>((r) => setTimeout(() => r('running'), ms))]);

  before(async () => {
    provider = createServer((req, res) => {
      let body = '';
      req.on('data', (d) => (body += d));
      req.on('end', () => {
        const form = Object.fromEntries(new URLSearchParams(body));
        requests.push(form);
        res.setHeader('content-type', 'application/json');
        if (mode === 'outage') return void res.writeHead(503).end('{}');
        // AMLBot answers an unknown access id with result:false, a bad signature with 403.
        if (form.accessId !== ID) return void res.end(JSON.stringify({ result: false, description: 'Invalid accessId' }));
        if (form.token !== createHash('md5').update(`${form.hash}:${KEY}:${ID}`).digest('hex')) return void res.writeHead(403).end('{"result":false}');
        res.end(JSON.stringify({ result: true, data: { uid: `uid-${form.hash}`, riskscore: 0.1, signals: { exchange: 1 } } }));
      });
    });
    const port = await freePort();
    await new Promise<void>((r) => provider.listen(port, '127.0.0.1', r));
    providerUrl = `http://127.0.0.1:${port}/`;
    devnet = await startDevnetProcess({ blockMs: 100, solidifiedDepth: 3 });
    app = await startApp({ TRON_FULL_NODE_URL: devnet.url, TRON_USDT_CONTRACT: devnet.usdtContract });
    chain = createChain({ fullNodeUrl: devnet.url, apiKey: null, usdtContract: devnet.usdtContract, txExpirationMs: 60_000 });
  });

  after(async () => {
    await Promise.all(workers.map((w) => w.stop()));
    await app?.stop();
    await devnet?.stop();
    provider?.close();
  });

  it('a wrong access key (403): the worker logs ALERT and refuses to start', async () => {
    const w = start(ID, 'wrong-key');
    assert.equal(await exitsWithin(w, 30_000), 1, w.output());
    assert.match(w.output(), /ALERT worker not started: the AML provider refused our credentials.*403/);
    assert.doesNotMatch(w.output(), /worker: running as/);
  });

  it('an unknown access id (result: false): the worker logs ALERT and refuses to start', async () => {
    const w = start('someone-else', KEY);
    assert.equal(await exitsWithin(w, 30_000), 1, w.output());
    assert.match(w.output(), /ALERT worker not started: .*Invalid accessId/);
  });

  it('a provider outage (5xx) at start-up: the worker starts (fail-open, as documented) and logs ALERT', async () => {
    mode = 'outage';
    try {
      const w = start(ID, KEY);
      await waitFor('the worker running', async () => /worker: running as/.test(w.output()), 30_000);
      assert.match(w.output(), /ALERT AML provider could not be checked at start-up.*503/);
      assert.equal(await exitsWithin(w, 1_000), 'running');
      await w.stop();
    } finally {
      mode = 'normal';
    }
  });

  it('the right credentials: the worker starts and screens payments with the provider', async () => {
    const probes = requests.length;
    const w = start(ID, KEY);
    await waitFor('the worker running', async () => /worker: running as/.test(w.output()), 30_000);
    assert.match(w.output(), /AML provider accepted our credentials/);
    const probe = requests[probes]!;
    assert.equal(probe.address, gasWallet.address, 'the probe checks the service gas wallet');

    const target = (TronWeb.createRandom() as unknown as { address: string }).address;
    const { merchant, key } = await app.createMerchant({ targetWallet: target });
    await app.prisma.merchant.update({ where: { id: merchant.id }, data: { amlCheck: true, amlRiskLimit: '50' } });
    const res = await app.api('/payment/create', key, { method: 'POST', body: { type: 'SINGLE', amount: 10, currencies: ['TRX'] } });
    assert.equal(res.status, 200, res.text);
    const inv = res.json as { id: number; address: string };
    const paid = await fetch(`${devnet.url}/devnet/pay`, { method: 'POST', body: JSON.stringify({ address: inv.address, amount: '40', currency: 'TRX' }) });
    const { txid } = (await paid.json()) as { txid: string };
    await waitFor('invoice COMPLETED', async () => (await app.api(`/payment/get/${inv.id}`, key)).json.status === 'COMPLETED', 60_000);
    const payment = await app.prisma.transaction.findFirstOrThrow({ where: { invoiceId: inv.id, type: 'PAYMENT' } });
    assert.equal((payment.amlCheck as { id: string; status: string }).id, `uid-${txid}`, 'screened by the provider');
    assert.equal((payment.amlCheck as { status: string }).status, 'SUCCESS');
    await assertReconciled(app.prisma, chain);
  });
});
