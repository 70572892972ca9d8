/**
 * Preloaded (`--import`) into every process scripts/run.ts starts, which it
 * connects by an IPC channel: when the runner dies, even by kill -9, the channel
 * closes and the child stops itself through its own SIGTERM handler (the worker
 * finishes its step, the web server closes), instead of living on as an orphan
 * that holds the port and the database for the next start.
 */
if (process.send) {
  process.once('disconnect', () => process.kill(process.pid, 'SIGTERM'));
}
export {};
