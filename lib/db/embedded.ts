import { mkdir } from 'node:fs/promises';
import { PGlite } from '@electric-sql/pglite';
import { PGLiteSocketServer } from '@electric-sql/pglite-socket';

export interface EmbeddedPostgres {
  url: string;
  stop(): Promise<void>;
}

/**
 * PGlite (PostgreSQL compiled to wasm) persisted in `dir`, served over the
 * Postgres wire protocol so the web app and the worker connect as to any server.
 * PGlite is a single session: pglite-socket runs one transaction at a time and
 * queues the other connections, which is correct but serial; production uses a
 * real PostgreSQL server through DATABASE_URL.
 */
export async function startEmbeddedPostgres(dir: string, port: number, host = '127.0.0.1'): Promise<EmbeddedPostgres> {
  await mkdir(dir, { recursive: true });
  const pglite = await PGlite.create(dir);
  const server = new PGLiteSocketServer({ db: pglite, port, host, maxConnections: 32 });
  await server.start();
  return {
    url: `postgres://postgres:postgres@${host}:${port}/postgres`,
    async stop() {
      await server.stop();
      await pglite.close();
    },
  };
}
