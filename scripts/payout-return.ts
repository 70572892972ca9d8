/**
 * `npm run payout:return -- <payout id> <address>`: an operator asks for what remains at a payout
 * that cannot finish (ERROR or TIMEOUT), or the excess of a COMPLETED one (docs/payouts.md,
 * "Returning the excess"), to be returned to `address` (lib/payouts/returns.ts). The
 * worker, which holds the keys, makes the sends on its next round; the payout's page shows them.
 * Without DATABASE_URL it acts on the local run (`npm run dev`) as it was left (scripts/devEnv.ts).
 */
import { runOperatorCommand } from './devEnv';

const id = Number(process.argv[2]);
const address = process.argv[3] ?? '';
if (!Number.isInteger(id) || id <= 0 || !address) {
  console.error('usage: npm run payout:return -- <payout id> <address>');
  process.exit(2);
}
await runOperatorCommand(async (prisma) => {
  const { PayoutReturnError, requestPayoutReturn } = await import('@/lib/payouts/returns');
  const { AppError } = await import('@/lib/errors');
  const { systemActor } = await import('@/lib/audit/record');
  try {
    await requestPayoutReturn(prisma, id, address, systemActor('npm run payout:return'));
    console.log(`payout ${id}: return to ${address} asked for; the worker will send what remains at the payout address`);
    return 0;
  } catch (err) {
    // A smart contract as the address (issue 34), or a node that cannot tell: said as the route says it.
    if (!(err instanceof PayoutReturnError) && !(err instanceof AppError)) throw err;
    console.error(`payout:return: ${err.message}`);
    return 1;
  }
});
