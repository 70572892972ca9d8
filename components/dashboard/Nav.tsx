'use client';

import { signOut } from 'next-auth/react';
import Link from 'next/link';
import { usePathname, useRouter } from 'next/navigation';
import { Button } from './ui';

const LINKS = [
  ['/dashboard', 'Overview'],
  ['/dashboard/invoices', 'Invoices'],
  ['/dashboard/transactions', 'Transactions'],
  ['/dashboard/webhooks', 'Webhooks'],
  ['/dashboard/keys', 'API keys'],
  ['/dashboard/settings', 'Settings'],
] as const;

export function Nav({ email }: { email: string }) {
  const pathname = usePathname();
  const router = useRouter();
  // A new payout is made from the invoices list, and is one once made.
  const current = (href: string) => (href === '/dashboard' ? pathname === href : pathname.startsWith(href) || (href === '/dashboard/invoices' && pathname.startsWith('/dashboard/payouts')));

  async function leave() {
    await signOut({ redirect: false });
    router.replace('/signin');
    router.refresh();
  }

  return (
    <header className="border-b border-slate-200 dark:border-slate-800">
      <div className="mx-auto flex max-w-6xl flex-wrap items-center gap-4 px-4 py-3">
        <span className="font-semibold">Tron Invoicing</span>
        <nav aria-label="Dashboard" className="flex flex-wrap gap-1">
          {LINKS.map(([href, label]) => (
            <Link
              key={href}
              href={href}
              aria-current={current(href) ? 'page' : undefined}
              className="rounded-md px-2 py-1 text-sm hover:bg-slate-100 aria-[current=page]:bg-slate-200 dark:hover:bg-slate-800 dark:aria-[current=page]:bg-slate-800"
            >
              {label}
            </Link>
          ))}
        </nav>
        <span className="ml-auto text-sm text-slate-600 dark:text-slate-400">{email}</span>
        <Button variant="secondary" onClick={leave}>
          Sign out
        </Button>
      </div>
    </header>
  );
}
