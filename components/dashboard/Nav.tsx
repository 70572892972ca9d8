'use client';

import { getCsrfToken, signOut } from 'next-auth/react';
import Link from 'next/link';
import { usePathname, useRouter } from 'next/navigation';
import { ROLES, type MemberRole } from '@/lib/auth/roles';
import { Button } from './ui';

/**
 * The header's links, each with the roles that may read what its page lists (the roles of the
 * page's GET route, lib/http/dashboard/routes.ts): a member sees links to the pages it can use. A
 * hidden page opened by its address still answers the 403's words, as before.
 */
const LINKS: readonly [href: string, label: string, roles: readonly MemberRole[]][] = [
  ['/dashboard', 'Overview', ROLES.read],
  ['/dashboard/invoices', 'Invoices', ROLES.read],
  ['/dashboard/transactions', 'Transactions', ROLES.read],
  ['/dashboard/webhooks', 'Webhooks', ROLES.read],
  ['/dashboard/keys', 'API keys', ROLES.keys],
  ['/dashboard/settings', 'Settings', ROLES.read],
  ['/dashboard/audit', 'Audit log', ROLES.audit],
  ['/dashboard/team', 'Team', ROLES.read],
];

/** A store the signed-in user is a member of, for the selector. */
export interface NavStore {
  id: number;
  name: string;
  role: string;
}

export function Nav({ email, stores, storeId, role }: { email: string; stores: NavStore[]; storeId: number; role: MemberRole }) {
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
          {LINKS.filter(([, , roles]) => roles.includes(role)).map(([href, label]) => (
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
