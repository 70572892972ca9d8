import pg from 'pg';

/**
 * Holds a database lock from the test, in an open transaction, so that a worker step that needs it
 * waits there: the test knows where the worker is stopped without timing anything.
 */
export async function dbGate(databaseUrl: string, sql: string, params: unknown[]) {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  await client.query('BEGIN');
  await client.query(sql, params);
  let open = true;
  return {
    activity: async () => (await client.query('SELECT pg_stat_clear_snapshot()'), await client.query(`SELECT pid, state, wait_event_type, wait_event, left(query, 160) AS query FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()`)).rows,
    // Statistics views are a snapshot per transaction, and this one stays open: cleared before each look.
    waiting: async (like: string) =>
      (await client.query('SELECT pg_stat_clear_snapshot()'), await client.query<{ pid: number }>(`SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock' AND pid <> pg_backend_pid() AND query ILIKE $1`, [like])).rows.map((r) => r.pid),
    /** A killed worker's connection: the server would notice the dead socket only when it next writes to it. Waits until each has ended. */
    terminate: async (pids: number[]) => void (await client.query('SELECT pg_terminate_backend(pid, 10000) FROM unnest($1::int[]) AS pid', [pids])),
    release: async () => {
      if (!open) return;
      open = false;
      await client.query('ROLLBACK');
      await client.end();
    },
  };
}
