import { redirect } from 'next/navigation';
import type { ReactNode } from 'react';
import { sessionMerchant } from '@/lib/auth/session';

export const dynamic = 'force-dynamic';

export default async function AuthLayout({ children }: { children: ReactNode }) {
  if (await sessionMerchant()) redirect('/dashboard');
  return <main className="mx-auto mt-16 max-w-sm px-4">{children}</main>;
}
