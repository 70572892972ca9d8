import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startApp, type TestApp } from './helpers/app';

/** WEB_CONCURRENCY (server.ts, issue 16): several web processes share the port and stop together. */
describe('web server with WEB_CONCURRENCY=2', () => {
  let app: TestApp;
  let key: string;
  before(async () => {
    app = await startApp({ WEB_CONCURRENCY: '2' });
    ({ key } = await app.createMerchant());
  });
  after(() => app.stop());

  const listeningPids = () => [...app.output().matchAll(/"pid":(\d+)[^\n]*web: listening/g)].map((m) => Number(m[1]));

  it('serves from two processes on one port, and the API works in each', async () => {
    for (let i = 0; i < 100 && new Set(listeningPids()).size < 2; i++) await new Promise((r) => setTimeout(r, 100));
    assert.equal(new Set(listeningPids()).size, 2, app.output());
    const answers = await Promise.all(Array.from({ length: 40 }, () => app.api('/merchant', key)));
    assert.deepEqual(new Set(answers.map((r) => r.status)), new Set([200]));
  });

  it('stops every process on SIGTERM', async () => {
    const pids = listeningPids();
    await app.stop();
    for (const pid of pids) assert.throws(() => process.kill(pid, 0), { code: 'ESRCH' }, `web process ${pid} still runs`);
  });
});
