/**
 * Polls `probe` until it answers. Every 100 ms for the first second (most waits end there: a
 * block, a webhook), then every 250 ms: a probe is a query or an API request, and the chain lane's
 * long waits (a forward's finality, a send proven dead after its expiry) probed ten times a second
 * for what a worker does at its own pace (issue 41: the suite is bound by the CPU).
 */
export async function waitFor<T>(what: string, probe: () => Promise<T | undefined | null | false>, timeoutMs = 15_000): Promise<T> {
  const start = Date.now();
  const deadline = start + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, Date.now() - start < 1_000 ? 100 : 250));
  }
}
