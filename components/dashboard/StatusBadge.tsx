const TONES: Record<string, string> = {
  ACTIVE: 'bg-sky-100 text-sky-800 dark:bg-sky-900 dark:text-sky-100',
  COMPLETED: 'bg-green-100 text-green-800 dark:bg-green-900 dark:text-green-100',
  DELIVERED: 'bg-green-100 text-green-800 dark:bg-green-900 dark:text-green-100',
  SUCCESS: 'bg-green-100 text-green-800 dark:bg-green-900 dark:text-green-100',
  OVERPAID: 'bg-amber-100 text-amber-800 dark:bg-amber-900 dark:text-amber-100',
  UNDERPAID: 'bg-amber-100 text-amber-800 dark:bg-amber-900 dark:text-amber-100',
  PENDING: 'bg-amber-100 text-amber-800 dark:bg-amber-900 dark:text-amber-100',
  SENDING: 'bg-amber-100 text-amber-800 dark:bg-amber-900 dark:text-amber-100',
};
const DANGER = 'bg-red-100 text-red-800 dark:bg-red-900 dark:text-red-100';
const NEUTRAL = 'bg-slate-100 text-slate-800 dark:bg-slate-800 dark:text-slate-100';

export function StatusBadge({ status }: { status: string }) {
  const tone = TONES[status] ?? (['ERROR', 'AML_FAILED', 'FAILED'].includes(status) ? DANGER : NEUTRAL);
  return <span className={`inline-block rounded px-2 py-0.5 text-xs font-medium ${tone}`}>{status}</span>;
}
