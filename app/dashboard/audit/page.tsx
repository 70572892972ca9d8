import { AuditLog } from '@/components/dashboard/AuditLog';

export default function AuditPage() {
  return (
    <>
      <h1 className="text-2xl font-semibold">Audit log</h1>
      <AuditLog />
    </>
  );
}
