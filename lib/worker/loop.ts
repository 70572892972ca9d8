const MAX_BACKOFF_MS = 30_000;

export interface Loop {
  stop(): Promise<void>;
}

/**
 * Runs `step` forever: again at once while it reports work done, after
 * `idleMs` when idle, and with doubling backoff (to 30 s) while it throws,
 * e.g. while the node or the database is unreachable.
 */
export function startLoop(name: string, idleMs: number, step: () => Promise<boolean>): Loop {
  let stopping = false;
  let wake: (() => void) | undefined;
  const sleep = (ms: number) => new Promise<void>((r) => { wake = r; setTimeout(r, ms); });
  const done = (async () => {
    let backoff = idleMs;
    while (!stopping) {
      try {
        const worked = await step();
        backoff = idleMs;
        if (!worked) await sleep(idleMs);
      } catch (err) {
        console.error(`worker ${name}: ${(err as Error).message}; retrying in ${backoff} ms`);
        await sleep(backoff);
        backoff = Math.min(backoff * 2, MAX_BACKOFF_MS);
      }
    }
  })();
  return {
    async stop() {
      stopping = true;
      wake?.();
      await done;
    },
  };
}
