export default function Home() {
  return (
    <main className="mx-auto max-w-2xl p-8">
      <h1 className="text-2xl font-semibold">Tron Invoicing</h1>
      <p className="mt-4">
        Merchant API at <code>/v1/api</code>. See the project README for how to call it.
      </p>
      <p className="mt-4 flex gap-4">
        <a className="text-indigo-700 underline dark:text-indigo-300" href="/dashboard">
          Merchant dashboard
        </a>
        <a className="text-indigo-700 underline dark:text-indigo-300" href="/signup">
          Create an account
        </a>
      </p>
    </main>
  );
}
