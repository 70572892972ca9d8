export default function Home() {
  return (
    <main className="mx-auto max-w-2xl p-8">
      <h1 className="text-2xl font-semibold">Tron Invoicing</h1>
      <p className="mt-4">
        Merchant API at <code>/v1/api</code>. See the project README for how to call it.
      </p>
    </main>
  );
}
