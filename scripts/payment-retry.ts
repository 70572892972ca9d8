/**
 * `npm run payment:retry -- <payment id>`: sends a FAILED payment round again once its
 * cause is fixed (lib/payments/operator.ts). The worker picks it up on its next round.
 * Without DATABASE_URL it acts on the local run (`npm run dev`) as it was left (scripts/devEnv.ts).
 */
import { runOperatorCommand } from './devEnv';

const id = Number(process.argv[2]);
if (!Number.isInteger(id) || id <= 0) {
  console.error('usage: npm run payment:retry -- <payment id>');
  process.exit(2);
}
await runOperatorCommand(async (prisma) => {
  const { retryFailedPayment } = await import('@/lib/payments/operator');
  const { AppError } = await import('@/lib/errors');
  try {
    const p = await retryFailedPayment(prisma, id);
    console.log(`payment ${id}: ${p.paymentState}, retry ${p.operatorRetries}; the worker will send it again`);
    return 0;
  } catch (err) {
    if (!(err instanceof AppError)) throw err;
    console.error(`payment:retry: ${err.message}`);
    return 1;
  }
});
