/**
 * `npm run two-factor:reset -- <e-mail>`: turns two-factor sign-in off for a user (a dashboard login) that lost
 * its second factors (its authenticator app, its passkeys) and its recovery codes, and ends its sessions; its passkeys are deleted (lib/auth/twoFactor.ts;
 * docs/operations.md says what to check first). Without DATABASE_URL it acts on the local run
 * (`npm run dev`) as it was left (scripts/devEnv.ts).
 */
import { runOperatorCommand } from './devEnv';

const email = process.argv[2];
if (!email) {
  console.error('usage: npm run two-factor:reset -- <user e-mail>');
  process.exit(2);
}
await runOperatorCommand(async (prisma) => {
  const { resetTwoFactor } = await import('@/lib/auth/twoFactor');
  const { AppError } = await import('@/lib/errors');
  try {
    const wasOn = await resetTwoFactor(prisma, email, { actor: { kind: 'system', name: 'npm run two-factor:reset' }, ip: null });
    console.log(`${email}: two-factor sign-in ${wasOn ? 'turned off' : 'was already off'}; every session ended. The user signs in with its password and can set it up again.`);
    return 0;
  } catch (err) {
    if (!(err instanceof AppError)) throw err;
    console.error(`two-factor:reset: ${err.message}`);
    return 1;
  }
});
