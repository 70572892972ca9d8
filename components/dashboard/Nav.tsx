'use client';

import { getCsrfToken, signOut } from 'next-auth/react';
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
  ['/dashboard/audit', 'Audit log'],
  ['/dashboard/team', 'Team'],
] as const;

/** A store the signed-in user is a member of, for the selector. */
export interface NavStore {
  id: number;
  name: string;
  role: string;
}

export function Nav({ email, stores, storeId }: { email: string; stores: NavStore[]; storeId: number }) {
  const pathname = usePathname();
  const router = useRouter();
  // A new payout is made from the invoices list, and is one once made.
  const current = (href: string) => (href === '/dashboard' ? pathname === href : pathname.startsWith(href) || (href === '/dashboard/invoices' && pathname.startsWith('/dashboard/payouts')));

  async function leave() {
    await signOut({ redirect: false });
    router.replace('/signin');
    router.refresh();
  }

  // Switching stores is next-auth's session update: the JWT's store changes only to one the user is a member of (lib/auth/session.ts).
  async function switchStore(id: number) {
    const csrfToken = await getCsrfToken();
    await fetch('/api/auth/session', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ csrfToken, data: { storeId: id } }) });
    router.replace('/dashboard');
    router.refresh();
  }

  return (
    // On a phone two short rows, not three (issue 38, item 10): the name, who is signed in and "Sign
    // out" on the first, the links in one row below that scrolls sideways; from `md` up, one row.
    <header className="border-b border-slate-200 dark:border-slate-800">
      <div className="mx-auto flex max-w-6xl flex-wrap items-center gap-x-4 gap-y-1 px-4 py-2 md:py-3">
        <span className="font-semibold">Tron Invoicing</span>
        <nav aria-label="Dashboard" className="order-last flex w-full gap-1 overflow-x-auto pb-1 md:order-none md:w-auto md:flex-wrap md:overflow-visible md:pb-0">
          {LINKS.map(([href, label]) => (
            <Link
              key={href}
              href={href}
              aria-current={current(href) ? 'page' : undefined}
              className="whitespace-nowrap rounded-md px-2 py-1 text-sm hover:bg-slate-100 aria-[current=page]:bg-slate-200 dark:hover:bg-slate-800 dark:aria-[current=page]:bg-slate-800"
            >
              {label}
            </Link>
          ))}
        </nav>
        {stores.length > 1 && (
          <label className="ml-auto flex items-center gap-1 text-sm">
            <span className="sr-only sm:not-sr-only">Store</span>
            <select aria-label="Store" className="max-w-[9rem] rounded-md border border-slate-300 bg-white px-1 py-1 sm:max-w-none dark:border-slate-700 dark:bg-slate-900" value={storeId} onChange={(e) => switchStore(Number(e.target.value))}>
              {stores.map((s) => (
                <option key={s.id} value={s.id}>
                  {s.name} ({s.role})
                </option>
              ))}
            </select>
          </label>
        )}
        <span className={`${stores.length > 1 ? '' : 'ml-auto '}min-w-0 max-w-[7rem] truncate text-sm text-slate-600 sm:max-w-none dark:text-slate-400`} title={email}>
          {email}
        </span>
        <Button variant="secondary" onClick={leave}>
          Sign out
        </Button>
      </div>
    </header>
  );
}
