import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { TronWeb } from 'tronweb';
import { createChain, type Chain } from '@/lib/chain';
import { deriveAccount } from '@/lib/chain/keys';
import { checkHealth } from '@/lib/operations/health';
import { scanHeartbeat } from '@/lib/operations/heartbeat';
import { startApp, TEST_MNEMONIC, type TestApp } from '../helpers/app';
import { createTestDatabase } from '../helpers/db';
import { startDevnetProcess, waitFor, type DevnetProcess } from '../helpers/devnet';
import { httpRequest, startHookReceiver, type HookReceiver } from '../helpers/http';
import { startWorker, type WorkerProcess } from '../helpers/worker';

const TOKEN = randomBytes(16).toString('hex');

/** `name{label="value"} 12` lines of a Prometheus text exposition, as a map. */
function samples(text: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const line of text.split('\n')) {
    const m = /^([a-z_]+(?:\{[^}]*\})?) (\S+)$/.exec(line);
    if (m) out.set(m[1]!, Number(m[2]));
  }
  return out;
}

const jsonLines = (text: string) =>
  text
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => {
      try {
        return JSON.parse(l) as Record<string, unknown>;
      } catch {
        assert.fail(`not a JSON log line: ${l}`);
      }
    });

describe('operations: JSON logs with request ids, /metrics, /healthz following the worker', () => {
  let devnet: DevnetProcess;
  let app: TestApp;
  let worker: WorkerProcess | undefined;
  let chain: Chain;
  let receiver: HookReceiver;
  const gas = deriveAccount(TEST_MNEMONIC, 0, 'gas').address;

  const metrics = async (authorization: string | null = `Bearer ${TOKEN}`) =>
    httpRequest(`${app.baseUrl}/metrics`, { headers: authorization === null ? {} : { authorization } });

  before(async () => {
    receiver = await startHookReceiver();
    devnet = await startDevnetProcess({ blockMs: 100, solidifiedDepth: 3 });
    app = await startApp({ TRON_FULL_NODE_URL: devnet.url, TRON_USDT_CONTRACT: devnet.usdtContract, METRICS_TOKEN: TOKEN, WORKER_STALE_SECONDS: '15' });
    chain = createChain({ fullNodeUrl: devnet.url, apiKey: null, usdtContract: devnet.usdtContract, txExpirationMs: 60_000 });
    await devnet.pay(gas, '1234.5', 'TRX');
  });

  after(async () => {
    await worker?.stop();
    await app?.stop();
    await devnet?.stop();
    receiver?.close();
  });

  it('answers every request with a request id, keeps a sane one from the caller, and logs it as JSON', async () => {
    const given = await httpRequest(`${app.baseUrl}/healthz`, { headers: { 'x-request-id': 'lb-7f3a.1' } });
    assert.equal(given.headers['x-request-id'], 'lb-7f3a.1');
    const made = await httpRequest(`${app.baseUrl}/v1/api/merchant`);
    assert.match(String(made.headers['x-request-id']), /^[0-9a-f-]{36}$/);
    const refused = await httpRequest(`${app.baseUrl}/healthz`, { headers: { 'x-request-id': 'has spaces and "quotes"' } });
    assert.match(String(refused.headers['x-request-id']), /^[0-9a-f-]{36}$/, 'an id that could forge log content is replaced');

    const lines = await waitFor('the request log lines', async () => {
      const all = jsonLines(app.output());
      return all.some((l) => l.reqId === made.headers['x-request-id']) ? all : null;
    });
    assert.ok(lines.every((l) => l.service === 'web' && typeof l.level === 'number' && typeof l.time === 'string'));
    const line = lines.find((l) => l.reqId === 'lb-7f3a.1');
    assert.deepEqual({ method: line?.method, path: line?.path, status: line?.status, msg: line?.msg }, { method: 'GET', path: '/healthz', status: 200, msg: 'request' });
    assert.equal(lines.find((l) => l.reqId === made.headers['x-request-id'])?.status, 403);
  });

  it('serves /metrics only with the bearer token when METRICS_TOKEN is set', async () => {
    assert.equal((await metrics(null)).status, 401);
    assert.equal((await metrics('Bearer wrong-token-of-some-length')).status, 401);
    assert.equal((await metrics(TOKEN)).status, 401, 'the Bearer scheme is required');
    const res = await metrics();
    assert.equal(res.status, 200);
    assert.match(String(res.headers['content-type']), /^text\/plain; version=0\.0\.4/);
  });

  it('reports the gas wallet, the chain, and every payment state at zero before any worker ran; healthz does not expect one yet', async () => {
    const m = samples((await metrics()).text);
    assert.equal(m.get('invoicing_chain_up'), 1);
    assert.equal(m.get('invoicing_gas_wallet_balance_trx'), 1234.5);
    const r = await chain.getAccountResources(gas);
    assert.equal(m.get('invoicing_gas_wallet_energy_available'), Number(r.energyLimit - r.energyUsed));
    for (const state of ['DETECTED', 'AML_PENDING', 'FORWARDING', 'SETTLED', 'REFUNDING', 'REFUNDED', 'FAILED']) assert.equal(m.get(`invoicing_payments{state="${state}"}`), 0, state);
    for (const status of ['PENDING', 'SENDING', 'DELIVERED', 'FAILED']) assert.equal(m.get(`invoicing_webhook_deliveries{status="${status}"}`), 0, status);
    assert.equal(m.has('invoicing_scanner_blocks_behind'), false, 'nothing scanned yet');
    assert.deepEqual((await httpRequest(`${app.baseUrl}/healthz`)).json, { status: 'ok', worker: 'not expected', last_scan_age_seconds: null, restarts: { web: 0, worker: 0, devnet: 0 } });
  });

  it('counts a paid invoice, its payment and its webhook from the database while the worker scans', { timeout: 90_000 }, async () => {
    worker = startWorker(app.env, devnet, { LOG_LEVEL: 'info' });
    await waitFor('healthz to see the worker', async () => (await httpRequest(`${app.baseUrl}/healthz`)).json.worker === 'scanning', 30_000);
    const target = (TronWeb.createRandom() as unknown as { address: string }).address;
    const { merchant, key } = await app.createMerchant({ targetWallet: target });
    await app.prisma.merchant.update({ where: { id: merchant.id }, data: { webhookUrl: receiver.url } });
    const inv = (await app.api('/payment/create', key, { method: 'POST', body: { type: 'SINGLE', amount: 5, currencies: ['TRX'] } })).json;
    await devnet.pay(inv.address, '20', 'TRX');
    const m = await waitFor('the metrics to show the settled payment and its webhook', async () => {
      const s = samples((await metrics()).text);
      return s.get('invoicing_payments{state="SETTLED"}') === 1 && s.get('invoicing_webhook_deliveries{status="DELIVERED"}') === 1 ? s : null;
    }, 60_000);
    assert.equal(m.get('invoicing_invoices{status="COMPLETED"}'), 1);
    assert.equal(m.get('invoicing_sends{state="CONFIRMED"}'), 1);
    const behind = m.get('invoicing_scanner_blocks_behind');
    assert.ok(behind !== undefined && Number.isInteger(behind) && behind >= 0);
    assert.equal(behind, Math.max(0, m.get('invoicing_chain_confirmed_block')! - m.get('invoicing_scanner_block')!));
    assert.ok(m.get('invoicing_worker_last_scan_age_seconds')! < 15);

    const workerLines = jsonLines(worker.output());
    assert.ok(workerLines.length > 0 && workerLines.every((l) => l.service === 'worker'));
    assert.ok(workerLines.some((l) => String(l.msg).startsWith('worker: running as ')));
  });

  it('fails /healthz once the worker has stopped scanning for WORKER_STALE_SECONDS', { timeout: 60_000 }, async () => {
    await worker!.stop();
    const res = await waitFor('healthz to fail', async () => {
      const r = await httpRequest(`${app.baseUrl}/healthz`);
      return r.status === 503 ? r : null;
    }, 40_000);
    assert.equal(res.json.status, 'unavailable');
    assert.match(res.json.detail, /^worker has not scanned for \d+ s \(limit 15 s\)$/);
  });
});

describe('healthz without a worker', () => {
  it('passes with no heartbeat unless HEALTHZ_REQUIRE_WORKER asks for one', async () => {
    Object.assign(process.env, { MASTER_KEY: randomBytes(32).toString('hex'), HD_MNEMONIC: TEST_MNEMONIC, DATABASE_URL: 'postgres://unused@127.0.0.1/unused' });
    const { createPrisma } = await import('@/lib/db/client');
    const database = await createTestDatabase();
    const prisma = createPrisma(database.url);
    try {
      assert.deepEqual(await checkHealth(prisma, { workerStaleSeconds: 60, requireWorker: false }), { ok: true, worker: 'not expected', lastScanAgeSeconds: null });
      assert.deepEqual(await checkHealth(prisma, { workerStaleSeconds: 60, requireWorker: true }), { ok: false, detail: 'no worker has reported a scan yet' });
      const now = Date.now();
      await scanHeartbeat(prisma, 'w1', () => now - 30_000)(); // the worker's own writer, 30 s ago
      assert.deepEqual(await checkHealth(prisma, { workerStaleSeconds: 60, requireWorker: true }, now), { ok: true, worker: 'scanning', lastScanAgeSeconds: 30 });
      assert.deepEqual(await checkHealth(prisma, { workerStaleSeconds: 20, requireWorker: false }, now), { ok: false, detail: 'worker has not scanned for 30 s (limit 20 s)' });
    } finally {
      await prisma.$disconnect();
      await database.drop();
    }
  });
});
