import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { runAmlCheck } from '@/lib/aml/check';
import { HttpAmlProvider } from '@/lib/aml/http';
import { LocalAmlProvider } from '@/lib/aml/local';
import { freePort } from '../helpers/app';

describe('AML providers', () => {
  let server: Server;
  let url: string;
  let mode: 'ok' | 'slow' | 'stall' | 'error' | 'refused' | 'unauthorized';
  let lastForm: URLSearchParams;

  before(async () => {
    server = createServer((req, res) => {
      let body = '';
      req.on('data', (d) => (body += d));
      req.on('end', () => {
        lastForm = new URLSearchParams(body);
        if (mode === 'slow') return void setTimeout(() => res.end('{}'), 5000);
        // Headers at once, the body never finished within the deadline.
        if (mode === 'stall') return void (res.writeHead(200, { 'content-type': 'application/json' }).write('{"result":'), setTimeout(() => res.end('true}'), 5000));
        if (mode === 'error') return void res.writeHead(500).end('boom');
        if (mode === 'unauthorized') return void res.writeHead(401).end('{"result":false}');
        const reply = mode === 'refused' ? { result: false, description: 'bad token' } : { result: true, data: { uid: 'u-1', riskscore: 0.8234, signals: { sanctions: 0.7, exchange: 0.3 } } };
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(reply));
      });
    });
    const port = await freePort();
    await new Promise<void>((r) => server.listen(port, '127.0.0.1', r));
    url = `http://127.0.0.1:${port}/`;
  });
  after(() => {
    server.closeAllConnections();
    server.close();
  });

  // A provider that answers is given all the time a busy machine needs; one that must time out is
  // given 200 ms against a server that answers after 5 s.
  const provider = (timeoutMs = 30_000) => new HttpAmlProvider({ url, accessId: 'acc', accessKey: 'key', timeoutMs });
  const request = { txId: 'ab12', address: 'Tsender', currency: 'USDT' as const };

  it('signs the request AMLBot-style and normalises the score to 0..100', async () => {
    mode = 'ok';
    const { record, passed } = await runAmlCheck(provider(), request, 50, 1);
    assert.equal(lastForm.get('hash'), 'ab12');
    assert.equal(lastForm.get('address'), 'Tsender');
    assert.equal(lastForm.get('token'), createHash('md5').update('ab12:key:acc').digest('hex'));
    assert.equal(passed, false);
    assert.equal(record.status, 'FAILED');
    assert.equal(record.risk_score, 82.34);
    assert.equal(record.risk_level, 'high');
    assert.deepEqual(record.exposure, { sanctions: 0.7, exchange: 0.3 });
    assert.equal(record.cost, 1);
    assert.equal(record.completed, true);
    assert.equal((await runAmlCheck(provider(), request, 90, 1)).record.status, 'SUCCESS');
  });

  it('records a timeout as TIMEOUT and provider errors as ERROR, letting the payment through uncharged', async () => {
    for (const m of ['slow', 'stall'] as const) {
      mode = m;
      const slow = await runAmlCheck(provider(200), request, 50, 1);
      assert.equal(slow.record.status, 'TIMEOUT', m);
      assert.equal(slow.passed, true);
      assert.equal(slow.record.cost, 0);
    }
    for (const m of ['error', 'refused'] as const) {
      mode = m;
      const r = await runAmlCheck(provider(), request, 50, 1);
      assert.equal(r.record.status, 'ERROR', m);
      assert.equal(r.record.completed, false);
    }
  });

  it('fails closed when the provider refuses our credentials or configuration: held, not passed (issue 13, case 10)', async () => {
    for (const m of ['refused', 'unauthorized'] as const) {
      mode = m;
      const r = await runAmlCheck(provider(), request, 50, 1);
      assert.equal(r.passed, false, m);
      assert.match(r.hold ?? '', m === 'refused' ? /bad token/ : /401/);
    }
    mode = 'error';
    assert.equal((await runAmlCheck(provider(), request, 50, 1)).passed, true, 'an outage (5xx) still lets the payment through, recorded as ERROR');
  });

  it('refuses to start the HTTP provider without credentials', async () => {
    const { amlProviderFrom } = await import('@/lib/aml');
    const { parseWorkerSettings } = await import('@/lib/config');
    assert.throws(() => amlProviderFrom(parseWorkerSettings({ AML_PROVIDER: 'http', AML_ACCESS_ID: '', AML_ACCESS_KEY: '' })), /AML_ACCESS_ID and AML_ACCESS_KEY/);
    assert.ok(amlProviderFrom(parseWorkerSettings({ AML_PROVIDER: 'http', AML_ACCESS_ID: 'a', AML_ACCESS_KEY: 'k' })));
  });

  it('local provider: flagged senders fail, others pass, deterministically', async () => {
    const local = new LocalAmlProvider(['Tbad'], 'http://x');
    const bad = await runAmlCheck(local, { ...request, address: 'Tbad' }, 70, 1);
    assert.equal(bad.record.status, 'FAILED');
    assert.equal(bad.record.risk_score, 90);
    const good = await runAmlCheck(local, request, 70, 1);
    assert.equal(good.record.status, 'SUCCESS');
    assert.equal(good.record.id, (await runAmlCheck(local, request, 70, 1)).record.id);
  });
});
