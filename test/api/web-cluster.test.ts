import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startApp, type TestApp } from '../helpers/app';

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
  // The process that answered a request: the pid of its log line for the request (server.ts logs each
  // one with the request id it answers in x-request-id); undefined until that line is written.
  const answeredBy = (reqId: string) => {
    const line = app.output().split('\n').find((l) => l.includes(`"reqId":"${reqId}"`) && l.includes('"msg":"request"'));
    const pid = line?.match(/"pid":(\d+)/)?.[1];
    return pid === undefined ? undefined : Number(pid);
  };

  it('serves from two processes on one port, and the API works in each', async () => {
    for (let i = 0; i < 100 && new Set(listeningPids()).size < 2; i++) await new Promise((r) => setTimeout(r, 100));
    assert.equal(new Set(listeningPids()).size, 2, app.output());
    // 40 requests at once open as many connections, which the cluster hands to its processes in turn.
    const answers = await Promise.all(Array.from({ length: 40 }, () => app.api('/merchant', key)));
    assert.deepEqual(new Set(answers.map((r) => r.status)), new Set([200]));
    const ids = answers.map((r) => String(r.headers['x-request-id']));
    for (let i = 0; i < 50 && ids.some((id) => answeredBy(id) === undefined); i++) await new Promise((r) => setTimeout(r, 100));
    const servedBy = ids.map(answeredBy);
    assert.ok(!servedBy.includes(undefined), `a request with no log line: ${ids[servedBy.indexOf(undefined)]}`);
    // Both processes answered some of them (one serving all would pass the status check alone).
    assert.deepEqual(new Set(servedBy), new Set(listeningPids()), JSON.stringify(servedBy));
  });

  it('stops every process on SIGTERM', async () => {
    const pids = listeningPids();
    await app.stop();
    for (const pid of pids) assert.throws(() => process.kill(pid, 0), { code: 'ESRCH' }, `web process ${pid} still runs`);
  });
});
