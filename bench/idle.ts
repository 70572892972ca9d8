/**
 * What an idle test stack costs (issue 41): a devnet with the tests' 50 ms blocks (BENCH_BLOCK_MS),
 * the production web server and one worker with the tests' settings (test/helpers/worker.ts),
 * nothing to do. After a warm-up it reads each process's CPU time from /proc for
 * BENCH_IDLE_SECONDS and prints CPU seconds per minute of idling, and the database's
 * transactions per second (a statement outside a transaction counts as one):
 *   idle_cpu_s_per_min{process=devnet|web|worker|postgres}=...
 *   idle_db_transactions_per_s=...
 * PostgreSQL's figure is the backends of the stack's database (by the database name in their
 * process titles); a backend that ended during the period is left out.
 * Needs PostgreSQL at TEST_DATABASE_URL and `npm run build`.
 *   npm run bench:idle
 */
import { readdirSync, readFileSync } from 'node:fs';
import { startApp } from '../test/helpers/app';
import { startDevnetProcess } from '../test/helpers/devnet';
import { startWorker } from '../test/helpers/worker';

const SECONDS = Number(process.env.BENCH_IDLE_SECONDS ?? 30);
const WARMUP_SECONDS = Number(process.env.BENCH_IDLE_WARMUP_SECONDS ?? 10);
const BLOCK_MS = Number(process.env.BENCH_BLOCK_MS ?? 50);
const HZ = 100; // Linux's USER_HZ: /proc's CPU times are in hundredths of a second

/** CPU seconds (user + system) of `pid`, or undefined once it has gone. */
function cpu(pid: number): number | undefined {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return (Number(fields[11]) + Number(fields[12])) / HZ;
  } catch {
    return undefined;
  }
}

/** The pids under /proc whose command line passes `match`. */
function processes(match: (cmdline: string) => boolean, among = readdirSync('/proc').filter((e) => /^\d+$/.test(e)).map(Number)): number[] {
  return among.filter((pid) => {
    try {
      return match(readFileSync(`/proc/${pid}/cmdline`, 'utf8'));
    } catch {
      return false;
    }
  });
}

/** This process's children running bundle `name` (dist/<name>.mjs). */
const children = (name: string) =>
  processes((cmd) => cmd.includes(`dist/${name}.mjs`), readFileSync(`/proc/${process.pid}/task/${process.pid}/children`, 'utf8').trim().split(' ').map(Number));

const devnet = await startDevnetProcess({ blockMs: BLOCK_MS });
const app = await startApp({ TRON_FULL_NODE_URL: devnet.url, TRON_USDT_CONTRACT: devnet.usdtContract });
// BENCH_WORKER_ENV: settings for the worker beyond the tests' (JSON), to compare one against another.
const worker = startWorker(app.env, devnet, JSON.parse(process.env.BENCH_WORKER_ENV ?? '{}') as Record<string, string>);
try {
  await new Promise((r) => setTimeout(r, WARMUP_SECONDS * 1000));
  const dbName = new URL(app.database.url).pathname.slice(1);
  const groups = (): Record<string, number[]> => ({
    devnet: children('devnet'),
    web: children('server'),
    worker: [worker.pid],
    // "postgres: [cluster name: ]user database host(port) state": Debian's clusters put "15/main:"
    // before the user, so the database is found among the words (its name is the stack's own).
    postgres: processes((cmd) => cmd.startsWith('postgres: ') && cmd.split(/[\s\0]+/).includes(dbName)),
  });
  const sample = () => Object.fromEntries(Object.entries(groups()).map(([k, pids]) => [k, new Map(pids.map((p) => [p, cpu(p) ?? 0]))]));
  const transactions = async () =>
    Number((await app.prisma.$queryRawUnsafe<{ n: bigint }[]>('SELECT xact_commit + xact_rollback AS n FROM pg_stat_database WHERE datname = current_database()'))[0]!.n);
  const tables = async () =>
    new Map((await app.prisma.$queryRawUnsafe<{ t: string; n: bigint }[]>('SELECT relname AS t, COALESCE(seq_scan, 0) + COALESCE(idx_scan, 0) AS n FROM pg_stat_user_tables')).map((r) => [r.t, Number(r.n)]));
  const before = sample();
  const xactBefore = await transactions();
  const tablesBefore = await tables();
  await new Promise((r) => setTimeout(r, SECONDS * 1000));
  const xactAfter = await transactions();
  for (const [k, pids] of Object.entries(before)) {
    let seconds = 0;
    for (const [pid, then] of pids) seconds += (cpu(pid) ?? then) - then;
    for (const pid of groups()[k]!) if (!pids.has(pid)) seconds += cpu(pid) ?? 0; // started during the period
    console.log(`idle_cpu_s_per_min{process=${k}}=${((seconds * 60) / SECONDS).toFixed(2)}`);
  }
  console.log(`idle_db_transactions_per_s=${((xactAfter - xactBefore) / SECONDS).toFixed(1)}`);
  // Which tables the idle stack reads (scans a second, the busiest first): which jobs poll.
  const tablesAfter = await tables();
  const scans = [...tablesAfter].map(([t, n]) => [t, (n - (tablesBefore.get(t) ?? 0)) / SECONDS] as const).filter(([, n]) => n > 0).sort((a, b) => b[1] - a[1]);
  console.log(`# idle scans a second by table: ${scans.map(([t, n]) => `${t} ${n.toFixed(1)}`).join(', ')}`);
} finally {
  await worker.stop();
  await app.stop();
  await devnet.stop();
}
