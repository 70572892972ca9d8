import Link from 'next/link';
import { CreateInvoiceForm } from '@/components/dashboard/CreateInvoiceForm';

export default function NewInvoicePage() {
  return (
    <>
      <Link className="text-sm text-indigo-600 underline dark:text-indigo-400" href="/dashboard/invoices">
        ← Back to the list
      </Link>
      <h1 className="text-2xl font-semibold">New invoice</h1>
      <CreateInvoiceForm />
    </>
  );
}
