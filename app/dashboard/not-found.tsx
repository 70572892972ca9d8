import Link from 'next/link';

// What notFound() in a dashboard page shows (status 404), inside the dashboard's layout: an
// unknown id and another merchant's look the same.
export default function DashboardNotFound() {
  return (
    <>
      <h1 className="text-2xl font-semibold">Not found</h1>
      <p>There is nothing at this address in your dashboard.</p>
      <Link className="text-sm text-indigo-600 underline dark:text-indigo-400" href="/dashboard/invoices">
        ← Back to the invoices
      </Link>
    </>
  );
}
