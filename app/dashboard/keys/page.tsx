import { ApiKeys } from '@/components/dashboard/ApiKeys';

export default function KeysPage() {
  return (
    <>
      <h1 className="text-2xl font-semibold">API keys</h1>
      <ApiKeys />
    </>
  );
}
