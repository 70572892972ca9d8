/**
 * `npm run payout:return -- <payout id> <address>`: an operator asks for what remains at a payout
 * that cannot finish (ERROR or TIMEOUT) to be returned to `address` (lib/payouts/returns.ts). The
 * worker, which holds the keys, makes the sends on its next round; the payout's page shows them.
 */
import { db } from '@/lib/db/client';
import { PayoutReturnError, requestPayoutReturn } from '@/lib/payouts/returns';

const id = Number(process.argv[2]);
const address = process.argv[3] ?? '';
if (!Number.isInteger(id) || id <= 0 || !address) {
  console.error('usage: npm run payout:return -- <payout id> <address>');
  process.exit(2);
}
const prisma = db();
try {
  await requestPayoutReturn(prisma, id, address);
  console.log(`payout ${id}: return to ${address} asked for; the worker will send what remains at the payout address`);
} catch (err) {
  if (!(err instanceof PayoutReturnError)) throw err;
  console.error(`payout:return: ${err.message}`);
  process.exitCode = 1;
} finally {
  await prisma.$disconnect();
}
