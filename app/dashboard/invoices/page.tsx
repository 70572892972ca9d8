import { CreateInvoiceForm } from '@/components/dashboard/CreateInvoiceForm';
import { InvoicesTable } from '@/components/dashboard/InvoicesTable';
import { MassPayoutForm } from '@/components/dashboard/MassPayoutForm';

export default function InvoicesPage() {
  return (
    <>
      <h1 className="text-2xl font-semibold">Invoices</h1>
      <CreateInvoiceForm />
      <MassPayoutForm />
      <InvoicesTable />
    </>
  );
}
