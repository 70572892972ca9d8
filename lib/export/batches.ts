/** What one batch query adds to the list's own `where`: the time bound and Prisma's cursor past the last row. */
export interface BatchStep {
  bound: { createdAt?: { lt: Date } | { gte: Date } };
  after?: { cursor: { id: number }; skip: 1 };
}

/**
 * Every row a list query matches, in the list's order, `batchSize` at a time, for the CSV
 * exports: keyset pagination on the list's total order (each batch starts after the last row
 * of the previous one, not at an ever larger OFFSET, and nothing is held but the batch in hand).
 *
 * Ordered by time (the default), the cursor's time is also given as a plain bound, which the
 * (merchant_id, created_at) index can seek to; Prisma's cursor condition alone is not. The
 * column has microseconds and a JS Date milliseconds: the bound is widened by the truncation
 * (a millisecond down or up), never narrowed; the cursor does the exact cut.
 */
export async function* keysetBatches<R extends { id: number; createdAt: Date }>(
  ordering: string,
  batchSize: number,
  fetch: (step: BatchStep) => Promise<R[]>,
): AsyncGenerator<R[]> {
  const byTime = ordering.replace(/^-/, '') === 'created_at';
  const descending = ordering.startsWith('-');
  let last: R | undefined;
  for (;;) {
    const bound = byTime && last ? { createdAt: descending ? { lt: new Date(last.createdAt.getTime() + 1) } : { gte: last.createdAt } } : {};
    const rows = await fetch({ bound, ...(last && { after: { cursor: { id: last.id }, skip: 1 as const } }) });
    if (rows.length > 0) yield rows;
    if (rows.length < batchSize) return;
    last = rows[rows.length - 1]!;
  }
}
