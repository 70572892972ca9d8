import Link from 'next/link';
import { InvoicesTable } from '@/components/dashboard/InvoicesTable';
import { linkButtonClass } from '@/components/dashboard/ui';

// The list first (issue 26): finding an invoice is the common task; creating one has its own page.
export default function InvoicesPage() {
  return (
    <>
      <div className="flex flex-wrap items-center gap-3">
        <h1 className="mr-auto text-2xl font-semibold">Invoices</h1>
        <Link className={linkButtonClass('primary')} href="/dashboard/invoices/new">
          New invoice
        </Link>
        <Link className={linkButtonClass('secondary')} href="/dashboard/payouts/new">
          New mass payout
        </Link>
      </div>
      <InvoicesTable />
    </>
  );
}
