import { TransactionsPanel } from '@/components/dashboard/TransactionsPanel';

export default function TransactionsPage() {
  return (
    <>
      <h1 className="text-2xl font-semibold">Transactions</h1>
      <TransactionsPanel />
    </>
  );
}
