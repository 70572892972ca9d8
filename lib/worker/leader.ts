import { execute, queryRows, sql, type PrismaRaw } from '@/lib/db/sql';

/**
 * The lease that makes a worker job a singleton (`WorkerJob.singleton`, docs/operations.md,
 * "Several hosts"): of all the workers sharing the database, only the one holding the job's row
 * in `job_leases` runs it. Every worker runs the job's loop; each round a worker takes the lease
 * if it is free or has run out, or renews it if it is its own, and runs the step only if it holds
 * it. The holder renews it every third of LEADER_LEASE_SECONDS while a step runs, so only a
 * holder that died (or lost the database) lets it run out; another worker then takes it over.
 *
 * A row with an expiry rather than an advisory lock: a session lock belongs to one connection of
 * a pool, and a pooler in transaction mode hands that connection to others; a transaction-scoped
 * lock would hold a transaction open through the step's chain calls; and either is released only
 * when PostgreSQL notices the connection is gone, which after a host's power cut can take as long
 * as TCP keepalive. Each take is one statement, timed by the database's clock (hosts' clocks may
 * differ), so it works through any pooler.
 *
 * What it does not do: stop a step that is already running when its lease is lost (a worker cut
 * off from the database for longer than the lease). The jobs' own writes stay safe then (the
 * scanner's cursor moves under an optimistic check, every send is stored before it is broadcast).
 */
export class LeaderLease {
  private leading = false;
  /** Until when (this process's clock) the lease is believed held without asking again: a third of it. */
  private trustedUntil = 0;

  constructor(
    private readonly prisma: PrismaRaw,
    readonly job: string,
    readonly owner: string,
    private readonly seconds: number,
  ) {}

  /** Takes the lease if it is free or has run out, renews it if it is ours: whether this worker leads the job now. */
  async hold(): Promise<boolean> {
    // Read before asking: the lease the database sets runs from a moment later, so trusting it for
    // a third of its length from here can never outlast it.
    const asked = Date.now();
    if (this.leading && asked < this.trustedUntil) return true;
    const rows = await queryRows<{ previous: string | null }>(this.prisma, sql`
      WITH previous AS (SELECT owner FROM job_leases WHERE job = ${this.job})
      INSERT INTO job_leases AS l (job, owner, lease_until, since)
      VALUES (${this.job}, ${this.owner}, now() + make_interval(secs => ${this.seconds}), now())
      ON CONFLICT (job) DO UPDATE SET owner = EXCLUDED.owner, lease_until = EXCLUDED.lease_until,
        since = CASE WHEN l.owner = EXCLUDED.owner THEN l.since ELSE now() END
      WHERE l.owner = EXCLUDED.owner OR l.lease_until < now()
      RETURNING (SELECT owner FROM previous) AS previous`);
    const won = rows.length > 0;
    if (won && !this.leading) {
      const previous = rows[0]!.previous;
      console.log(`worker: running ${this.job} on this worker (${previous === null || previous === this.owner ? 'no other worker held it' : `taken over from ${previous}, whose lease ran out`})`);
    } else if (!won && this.leading) {
      console.error(`worker: ${this.job} is run by another worker now: this one did not renew its lease in time`);
    }
    this.leading = won;
    this.trustedUntil = won ? asked + (this.seconds * 1000) / 3 : 0;
    return won;
  }

  /**
   * Runs `step` if this worker holds the lease (false otherwise: the loop waits its idle time and
   * asks again), renewing it while the step runs.
   */
  async run(step: () => Promise<boolean>): Promise<boolean> {
    if (!(await this.hold())) return false;
    const renew = setInterval(() => {
      this.hold().catch((err: unknown) => console.error(`worker: renewing the lease of ${this.job}: ${(err as Error).message}`));
    }, (this.seconds * 1000) / 4);
    try {
      return await step();
    } finally {
      clearInterval(renew);
    }
  }

  /** Gives the lease up (a clean stop), so another worker takes the job over at once rather than after the lease. */
  async release(): Promise<void> {
    if (!this.leading) return;
    this.leading = false;
    await execute(this.prisma, sql`DELETE FROM job_leases WHERE job = ${this.job} AND owner = ${this.owner}`);
  }
}
