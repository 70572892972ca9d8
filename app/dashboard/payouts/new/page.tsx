import Link from 'next/link';
import { MassPayoutForm } from '@/components/dashboard/MassPayoutForm';

export default function NewPayoutPage() {
  return (
    <>
      <Link className="text-sm text-indigo-600 underline dark:text-indigo-400" href="/dashboard/invoices">
        ← Back to the list
      </Link>
      <h1 className="text-2xl font-semibold">New mass payout</h1>
      <MassPayoutForm />
    </>
  );
}
