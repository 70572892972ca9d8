import { TransactionsPanel } from '@/components/dashboard/TransactionsPanel';

export default async function TransactionsPage({ searchParams }: { searchParams: Promise<{ invoice_id?: string }> }) {
  return (
    <>
      <h1 className="text-2xl font-semibold">Transactions</h1>
      <TransactionsPanel invoiceId={(await searchParams).invoice_id} />
    </>
  );
}
