import { statusLabel, type LabelKind } from './labels';

const WARN = 'bg-amber-100 text-amber-800 dark:bg-amber-900 dark:text-amber-100';
const GOOD = 'bg-green-100 text-green-800 dark:bg-green-900 dark:text-green-100';
const TONES: Record<string, string> = {
  ACTIVE: 'bg-sky-100 text-sky-800 dark:bg-sky-900 dark:text-sky-100',
  COMPLETED: GOOD,
  DELIVERED: GOOD,
  SUCCESS: GOOD,
  OVERPAID: WARN,
  UNDERPAID: WARN,
  PENDING: WARN,
  SENDING: WARN,
  SENT: GOOD,
  WAITING_ADDRESS: WARN,
  WAITING_FUNDS: WARN,
};
const DANGER = 'bg-red-100 text-red-800 dark:bg-red-900 dark:text-red-100';
const NEUTRAL = 'bg-slate-100 text-slate-800 dark:bg-slate-800 dark:text-slate-100';

/** A status in words (components/dashboard/labels.ts); the API's code stays in the title. */
export function StatusBadge({ status, kind }: { status: string; kind: LabelKind }) {
  const tone = TONES[status] ?? (['ERROR', 'AML_FAILED', 'FAILED'].includes(status) ? DANGER : NEUTRAL);
  return (
    <span title={status} className={`inline-block whitespace-nowrap rounded px-2 py-0.5 text-xs font-medium ${tone}`}>
      {statusLabel(kind, status)}
    </span>
  );
}
