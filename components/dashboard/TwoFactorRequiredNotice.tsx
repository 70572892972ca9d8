'use client';

import { useQuery, useQueryClient } from '@tanstack/react-query';
import Link from 'next/link';
import { useEffect, useRef } from 'react';
import type { TwoFactorJson } from '@/lib/auth/twoFactor';
import { dashboardApi } from './api';

/**
 * The notice of a store that requires two-factor sign-in, to a member without it (issue 40,
 * lib/auth/storeTwoFactor.ts): every page but its own login answers 403 until it is set up. Read
 * from the same query the Settings card refreshes, so the notice goes the moment the second factor
 * is on, and every list refused meanwhile is asked again.
 */
export function TwoFactorRequiredNotice() {
  const client = useQueryClient();
  const state = useQuery({ queryKey: ['two-factor'], queryFn: () => dashboardApi<TwoFactorJson>('/settings/two-factor') });
  // On as the server counts it (hasSecondFactor: TOTP on, or a passkey); null until read.
  const on = state.data?.on ?? null;
  const wasOff = useRef(false);
  useEffect(() => {
    if (on === false) wasOff.current = true;
    if (on && wasOff.current) {
      wasOff.current = false;
      void client.invalidateQueries({ predicate: (q) => q.queryKey[0] !== 'two-factor' });
    }
  }, [on, client]);
  if (on !== false) return null;
  return (
    <div role="alert" className="mx-auto mt-4 max-w-6xl rounded-lg border border-amber-300 bg-amber-50 px-4 py-3 text-sm text-amber-900 dark:border-amber-700 dark:bg-amber-950 dark:text-amber-100">
      This store requires two-factor sign-in. Set it up for your login in{' '}
      <Link href="/dashboard/settings" className="underline">
        Settings
      </Link>
      , Two-factor sign-in; until then the dashboard shows nothing of the store.
    </div>
  );
}
