/**
 * Issue 34, items 2 and 3: `npm start` as an operator or a container runs it. It is started for
 * real (npm, the runner, the web server's processes, the worker, the devnet), on a data
 * directory that does not exist yet as on a fresh checkout, against a test database; a SIGTERM
 * or a SIGINT to the npm process must stop every process of it and free its ports. Nothing here
 * asserts how long anything takes: each wait polls for its condition up to a deadline.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { staleBuildReason } from '@/scripts/buildIfStale';
import { localDevnet } from '@/scripts/devEnv';
import { freePort } from '../helpers/app';
import { bundled } from '../helpers/bundle';
import { createTestDatabase } from '../helpers/db';
import { cmdline, descendants, productionRunEnv } from '../helpers/devRun';
import { httpRequest } from '../helpers/http';

const ROOT = path.resolve(import.meta.dirname, '../..');

/** Whether `pid` still runs: an exited process not yet reaped (a zombie) has stopped. */
function running(pid: number): boolean {
  try {
    return readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ')[0] !== 'Z';
  } catch {
    return false;
  }
}

/** The processes of process group `pgid` still running: npm start's, as the test starts it in its own group. */
function group(pgid: number): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      // "pid (comm) state ppid pgrp ...": comm may hold spaces, so split after ')'.
      const [state, , pgrp] = readFileSync(`/proc/${entry}/stat`, 'utf8').split(') ')[1]!.split(' ');
      if (Number(pgrp) === pgid && state !== 'Z') pids.push(Number(entry));
    } catch {
      /* exited meanwhile */
    }
  }
  return pids;
}

/**
 * Whether any socket listens on TCP `port` (IPv4 or IPv6), read from /proc/net. Not "can a new
 * server listen there": that needs no socket at all on the port, and once the run has freed it,
 * another process's socket (an outgoing connection's local port, a listen on port 0) may take it
 * though nothing of the run holds it. CI once failed so, beside the other chain tests.
 */
function listens(port: number): boolean {
  const hexPort = port.toString(16).toUpperCase().padStart(4, '0');
  return ['/proc/net/tcp', '/proc/net/tcp6'].some((file) =>
    readFileSync(file, 'utf8')
      .split('\n')
      .slice(1)
      .some((line) => {
        // "sl local_address rem_address st ...": local_address is "<hex ip>:<hex port>", st 0A is LISTEN.
        const [, local, , state] = line.trim().split(/\s+/);
        return state === '0A' && local?.split(':')[1] === hexPort;
      }),
  );
}

async function until(what: string, check: () => boolean | Promise<boolean>, ms: number, log: () => string): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}\n${log()}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

/**
 * Runs `npm start` until its web server answers /healthz (`serving`), or only until the runner has
 * started the devnet (`starting`: it is still funding the gas wallet or starting the web), sends
 * `signal` to the npm process alone (as `kill <pid>`, systemd or a container runtime does), and
 * checks that every process of the run ends before npm exits, npm exits 0, and the ports are free.
 */
async function startThenSignal(signal: 'SIGTERM' | 'SIGINT', when: 'serving' | 'starting'): Promise<void> {
  // npm start would build first: a test builds nothing (npm test runs npm run build before).
  const stale = staleBuildReason(ROOT);
  if (stale !== null) throw new Error(`The Next build is not current (${stale}): run \`npm run build\` first`);
  bundled('server');
  const database = await createTestDatabase();
  const parent = mkdtempSync(path.join(tmpdir(), 'npm-start-'));
  // As on a fresh checkout: the run's data directory is not there yet.
  const dataDir = path.join(parent, 'data');
  const port = await freePort();
  const devnetPort = await freePort();
  const npm = spawn('npm', ['start'], {
    cwd: ROOT,
    // Its own process group, so that whatever a failed test leaves running can be killed below.
    detached: true,
    env: productionRunEnv({ databaseUrl: database.url, dataDir, port, devnetPort }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  npm.stdout.on('data', (d) => (output += d));
  npm.stderr.on('data', (d) => (output += d));
  const log = () => output.slice(-5000);
  const npmPid = npm.pid!;
  // What still ran when npm exited: npm must be the last to go, after everything it started.
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null; left: string[] }>((resolve) =>
    npm.once('exit', (code, sig) => resolve({ code, signal: sig, left: group(npmPid).map(cmdline) })),
  );
  let tree: number[] = [];
  try {
    const runs = (script: string) => tree.filter((p) => cmdline(p).includes(script));
    if (when === 'serving') {
      await until('/healthz to answer 200', async () => {
        if (npm.exitCode !== null) throw new Error(`npm start exited (${npm.exitCode})\n${log()}`);
        return (await httpRequest(`http://127.0.0.1:${port}/healthz`).catch(() => ({ status: 0 }))).status === 200;
      }, 180_000, log);
      tree = descendants(npmPid);
      assert.ok(runs('scripts/run.ts').length >= 1, `no runner among\n${tree.map(cmdline).join('\n')}`);
      // The cluster primary and its two web processes.
      assert.equal(runs('dist/server.mjs').length, 3, tree.map(cmdline).join('\n'));
      assert.equal(runs('dist/worker.mjs').length, 1, tree.map(cmdline).join('\n'));
      assert.equal(runs('dist/devnet.mjs').length, 1, tree.map(cmdline).join('\n'));
      assert.ok(existsSync(path.join(dataDir, 'dev-run.json')), 'the run recorded its devnet');
    } else {
      await until('the devnet to start', () => {
        if (npm.exitCode !== null) throw new Error(`npm start exited (${npm.exitCode})\n${log()}`);
        tree = descendants(npmPid);
        return runs('dist/devnet.mjs').length === 1;
      }, 180_000, log);
    }

    process.kill(npmPid, signal);
    // Each finishes what it does first (the worker its step, the web its open requests): slow on
    // a busy machine, so the bound is generous, as in test/run/supervision.test.ts. The whole process
    // group is watched, so a process started after the listing above counts too.
    await until(`every process of npm start to end after a ${signal} to npm`, () => group(npmPid).length === 0, 120_000, () => `still running:\n${group(npmPid).map(cmdline).join('\n')}\n${log()}`);
    assert.deepEqual(await exited, { code: 0, signal: null, left: [] }, `npm start's exit after a ${signal}, and what still ran then`);
    assert.equal(listens(port), false, `the web port ${port} is still listened on`);
    assert.equal(listens(devnetPort), false, `the devnet port ${devnetPort} is still listened on`);
    assert.doesNotMatch(output, /restarting it/, 'nothing was restarted while stopping');
  } finally {
    // Whatever is left (a failure above): the process group, and any process that left it.
    for (const target of [-npmPid, ...tree]) {
      try {
        process.kill(target, 'SIGKILL');
      } catch {
        /* already gone */
      }
    }
    await until('the leftovers to end', () => group(npmPid).length === 0 && !tree.some(running), 30_000, log).catch(() => undefined);
    await database.drop();
    rmSync(parent, { recursive: true, force: true });
  }
}

describe('npm start is one process tree that a signal to npm stops (issue 34, item 2)', () => {
  it('a SIGTERM to the npm process stops the runner, web, worker and devnet, and frees the ports', () => startThenSignal('SIGTERM', 'serving'));
  it('a SIGINT to the npm process does the same', () => startThenSignal('SIGINT', 'serving'));
  it('a SIGTERM while it starts (the devnet up, the web not yet) stops what has started, and nothing more starts', () => startThenSignal('SIGTERM', 'starting'));
});

describe('the run on a data directory that does not exist yet (issue 34, item 3)', () => {
  it('records the devnet URL (dev-run.json), creating the directory', () => {
    const parent = mkdtempSync(path.join(tmpdir(), 'npm-start-data-'));
    try {
      const dataDir = path.join(parent, 'fresh', 'data');
      assert.equal(existsSync(dataDir), false);
      const env = { NODE_ENV: 'production', DEVNET_PORT: '45123' } as NodeJS.ProcessEnv;
      const url = localDevnet(dataDir, env);
      assert.match(url, /:45123$/);
      assert.deepEqual(JSON.parse(readFileSync(path.join(dataDir, 'dev-run.json'), 'utf8')), { devnetUrl: url });
      assert.equal(env.TRON_FULL_NODE_URL, url);
      assert.equal(env.DEVNET_DATA_DIR, path.join(dataDir, 'devnet'));
    } finally {
      rmSync(parent, { recursive: true, force: true });
    }
  });
});
