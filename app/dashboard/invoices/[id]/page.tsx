import { notFound, redirect } from 'next/navigation';
import { InvoiceDetail } from '@/components/dashboard/InvoiceDetail';
import { sessionMerchant } from '@/lib/auth/session';
import { db } from '@/lib/db/client';
import { merchantHasInvoice } from '@/lib/invoices/service';
import { parseId } from '@/lib/schemas/id';

export default async function InvoicePage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  // The layout sends the signed-out to sign-in; the page is rendered beside it, so it asks too.
  const merchant = await sessionMerchant();
  if (!merchant) redirect('/signin');
  // Another merchant's invoice and an unknown id: the same real 404 status, as the JSON route (issue 34).
  const invoiceId = parseId(id);
  if (invoiceId === null || !(await merchantHasInvoice(db(), merchant.id, invoiceId))) notFound();
  return <InvoiceDetail id={id} />;
}
