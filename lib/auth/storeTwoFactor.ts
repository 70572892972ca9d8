import type { Merchant } from '@/lib/generated/prisma/client';
import { AppError } from '@/lib/errors';
import { hasSecondFactor, type SecondFactors } from './twoFactor';

/*
 * A store that requires two-factor sign-in of every member (issue 40, migration 0105): an owner
 * turns it on, once the owner has a second factor of its own (else the store's only way in could
 * be a login that just lost its access). A member without one may still sign in, or it could never
 * set one up: until it does, the dashboard answers only the routes of its own login (the password,
 * two-factor sign-in, the stores it belongs to; `ownLogin` rows, lib/http/dashboard/routes.ts),
 * every other with the 403 below; the header says why (app/dashboard/layout.tsx).
 */

/** The `reason` of the 403 a member without a second factor gets in a store that requires one. */
export const TWO_FACTOR_REQUIRED_BY_STORE = 'two_factor_required';

/** Whether the store keeps this user out of all but its own login until it sets up a second factor. */
export function lockedOutUntilTwoFactor(merchant: Pick<Merchant, 'requireTwoFactor'>, user: SecondFactors): boolean {
  return merchant.requireTwoFactor && !hasSecondFactor(user);
}

/** Refuses a call of a member the store keeps out until it has a second factor; reads and changes nothing. */
export function requireStoreTwoFactor(merchant: Pick<Merchant, 'requireTwoFactor'>, user: SecondFactors): void {
  if (lockedOutUntilTwoFactor(merchant, user)) {
    throw new AppError('FORBIDDEN', 'This store requires two-factor sign-in: set it up for your login in Settings, Two-factor sign-in, first.', { reason: TWO_FACTOR_REQUIRED_BY_STORE });
  }
}

/**
 * Refuses to turn the requirement on for an owner who has no second factor itself: the owner would
 * lock itself out of all but its settings the moment it saves.
 */
export function refuseRequirementWithoutOwnFactor(turningOn: boolean, user: SecondFactors): void {
  if (turningOn && !hasSecondFactor(user)) {
    throw new AppError('CONFLICT', 'Turn on two-factor sign-in for your own login first (Settings, Two-factor sign-in): the store would otherwise lock you out.');
  }
}
