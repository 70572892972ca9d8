import { redirect } from 'next/navigation';
import type { ReactNode } from 'react';
import { Nav } from '@/components/dashboard/Nav';
import { QueryProvider } from '@/components/QueryProvider';
import { sessionMerchant } from '@/lib/auth/session';

export const dynamic = 'force-dynamic';
export const metadata = { title: 'Dashboard · Tron Invoicing' };

export default async function DashboardLayout({ children }: { children: ReactNode }) {
  const merchant = await sessionMerchant();
  if (!merchant) redirect('/signin');
  return (
    <QueryProvider>
      <Nav email={merchant.email} />
      <main className="mx-auto max-w-6xl space-y-6 px-4 py-6">{children}</main>
    </QueryProvider>
  );
}
