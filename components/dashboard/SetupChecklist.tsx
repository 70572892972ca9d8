import Link from 'next/link';
import type { SetupStep, SetupStepId } from '@/lib/merchants/setup';

const STEPS: Record<SetupStepId, { title: string; why: string; href: string; action: string }> = {
  wallet: { title: 'Set your payout wallet', why: 'Needed before creating invoices: payments are forwarded there, less the fee.', href: '/dashboard/settings', action: 'Settings' },
  key: { title: 'Create an API key', why: 'Your shop creates invoices with it.', href: '/dashboard/keys', action: 'API keys' },
  webhook: { title: 'Set a webhook URL', why: 'Your shop hears when an invoice is paid; turn on retries there too.', href: '/dashboard/settings', action: 'Settings' },
  profile: { title: 'Fill in your store profile', why: 'Customers see your store name and how to reach you on the payment page.', href: '/dashboard/settings', action: 'Settings' },
  payment: { title: 'Receive a first payment', why: 'Create an invoice and pay it (on the devnet, its payment page has a pay button).', href: '/dashboard/invoices/new', action: 'New invoice' },
};

/** The overview's setup checklist, shown until every step is done (issue 38). */
export function SetupChecklist({ steps }: { steps: SetupStep[] }) {
  const done = steps.filter((s) => s.done).length;
  if (done === steps.length) return null;
  return (
    <section aria-labelledby="setup-heading" className="rounded-md border border-sky-300 bg-sky-50 p-3 text-sm text-sky-950 dark:border-sky-800 dark:bg-sky-950 dark:text-sky-50" data-testid="setup-checklist">
      <h2 id="setup-heading" className="font-semibold">
        Get set up: {done} of {steps.length} done
      </h2>
      <ol className="mt-2 space-y-1">
        {steps.map((s) => {
          const step = STEPS[s.id];
          return (
            <li key={s.id} data-step={s.id} data-done={s.done} className="flex gap-2">
              <span aria-hidden="true" className="w-4 shrink-0 font-bold">
                {s.done ? '✓' : '○'}
              </span>
              <span>
                <span className={s.done ? 'line-through opacity-75' : 'font-medium'}>{step.title}</span>
                <span className="sr-only">{s.done ? ' (done)' : ' (to do)'}</span>
                {!s.done && (
                  <>
                    : {step.why}{' '}
                    <Link className="underline" href={step.href}>
                      {step.action}
                    </Link>
                  </>
                )}
              </span>
            </li>
          );
        })}
      </ol>
    </section>
  );
}
