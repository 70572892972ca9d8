/**
 * The tests' ports (CI failed once when a run's freed web port was taken before the test looked):
 * freePort hands out ports outside the kernel's ephemeral range, which a listen on port 0 and every
 * outgoing connection draw from, so neither can take one between freePort and its server's listen.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { describe, it } from 'node:test';
import { freePort } from '../helpers/app';

describe('freePort', () => {
  it('hands out ports below the ephemeral range, none twice, each one a server can listen on', async () => {
    const [ephemeralLow] = readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/).map(Number);
    const ports: number[] = [];
    for (let i = 0; i < 50; i++) ports.push(await freePort());
    assert.equal(new Set(ports).size, ports.length, `a port given twice: ${ports.join(' ')}`);
    for (const port of ports) assert.ok(port >= 1024 && port < ephemeralLow!, `${port} is not below the ephemeral range (${ephemeralLow})`);
    for (const port of ports.slice(0, 5)) {
      await new Promise<void>((resolve, reject) => {
        const server = createServer();
        server.once('error', reject);
        server.listen(port, '127.0.0.1', () => server.close(() => resolve()));
      });
    }
  });
});
