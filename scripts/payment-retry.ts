/**
 * `npm run payment:retry -- <payment id>`: sends a FAILED payment round again once its
 * cause is fixed (lib/payments/operator.ts). The worker picks it up on its next round.
 */
import { db } from '@/lib/db/client';
import { PaymentActionError, retryFailedPayment } from '@/lib/payments/operator';

const id = Number(process.argv[2]);
if (!Number.isInteger(id) || id <= 0) {
  console.error('usage: npm run payment:retry -- <payment id>');
  process.exit(2);
}
const prisma = db();
try {
  const p = await retryFailedPayment(prisma, id);
  console.log(`payment ${id}: ${p.paymentState}, retry ${p.operatorRetries}; the worker will send it again`);
} catch (err) {
  if (!(err instanceof PaymentActionError)) throw err;
  console.error(`payment:retry: ${err.message}`);
  process.exitCode = 1;
} finally {
  await prisma.$disconnect();
}
