import { InvoiceDetail } from '@/components/dashboard/InvoiceDetail';

export default async function InvoicePage({ params }: { params: Promise<{ id: string }> }) {
  return <InvoiceDetail id={(await params).id} />;
}
