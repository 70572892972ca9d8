import { createHash, randomBytes } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import pg from 'pg';
import { migrate, MIGRATIONS_DIR } from '@/lib/db/migrate';

/** The PostgreSQL server tests run against; .ci/run provides one. */
const TEST_SERVER_URL = process.env.TEST_DATABASE_URL ?? 'postgres://postgres:postgres@127.0.0.1:5432/postgres';
/** Serialises the making of a template across every test process on the server (an advisory lock of the admin database). */
const TEMPLATE_LOCK = 7_405_114;

export interface TestDatabase {
  url: string;
  drop(): Promise<void>;
}

async function admin<T>(fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: TEST_SERVER_URL });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

function urlOf(name: string): string {
  const url = new URL(TEST_SERVER_URL);
  url.pathname = `/${name}`;
  return url.toString();
}

/** `tmpl_<hash>`: named by every migration's name and text, so a changed or added migration makes a new template. */
async function templateName(): Promise<string> {
  const hash = createHash('sha256');
  const names = (await readdir(MIGRATIONS_DIR, { withFileTypes: true })).filter((e) => e.isDirectory()).map((e) => e.name).sort();
  for (const name of names) hash.update(`${name}\n`).update(await readFile(path.join(MIGRATIONS_DIR, name, 'migration.sql')));
  return `tmpl_${hash.digest('hex').slice(0, 24)}`;
}

/**
 * The database every test database is copied from, migrated once per set of migrations (issue 41):
 * copying it takes a fraction of a second where running the 43 migrations took about one. Made under a
 * lock, under a temporary name renamed when whole, so a test process that was killed half-way
 * leaves nothing another would copy. Kept between runs; another checkout's (other migrations) is
 * another name, and is left alone.
 */
let template: Promise<string> | undefined;
function migratedTemplate(): Promise<string> {
  template ??= templateName().then((name) =>
    admin(async (c) => {
      await c.query('SELECT pg_advisory_lock($1)', [TEMPLATE_LOCK]);
      try {
        if ((await c.query('SELECT 1 FROM pg_database WHERE datname = $1', [name])).rowCount) return name;
        const building = `${name}_building`;
        await c.query(`DROP DATABASE IF EXISTS "${building}" WITH (FORCE)`);
        await c.query(`CREATE DATABASE "${building}"`);
        await migrate(urlOf(building));
        await c.query(`ALTER DATABASE "${building}" RENAME TO "${name}"`);
        return name;
      } finally {
        await c.query('SELECT pg_advisory_unlock($1)', [TEMPLATE_LOCK]);
      }
    }),
  );
  return template;
}

/** A new migrated database on the test server, a copy of the template, so test files never share state. */
export async function createTestDatabase(): Promise<TestDatabase> {
  const name = `t_${Date.now()}_${randomBytes(4).toString('hex')}`;
  const source = await migratedTemplate();
  await admin(async (c) => {
    // PostgreSQL refuses a copy while another session is connected to the template (55006): only
    // another copy being made, for a moment. Try again then; any other error is the test's failure.
    for (let attempt = 1; ; attempt++) {
      try {
        return await c.query(`CREATE DATABASE "${name}" TEMPLATE "${source}"`);
      } catch (err) {
        if ((err as { code?: string }).code !== '55006' || attempt >= 50) throw err;
        await new Promise((r) => setTimeout(r, 100));
      }
    }
  });
  // A commit is not waited for until its WAL is on disk (it is written a moment later): the tests never crash the
  // server, and every process they start writes its own state each poll (scan cursors, the energy status, leases), some
  // thousands of commits a minute in a chain lane of four files, each of which waited for a flush to disk (issue 41).
  // What a test sees is the same; only what a power cut would keep changes. Set per database: the production path
  // (`npm start`, `npm run dev`, and the tests' runs of them, on their own servers) keeps PostgreSQL's default.
  await admin((c) => c.query(`ALTER DATABASE "${name}" SET synchronous_commit = off`));
  return {
    url: urlOf(name),
    drop: () => admin((c) => c.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`)).then(() => undefined),
  };
}
