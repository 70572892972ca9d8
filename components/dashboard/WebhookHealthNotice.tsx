import Link from 'next/link';
import type { FailingEndpoint } from '@/lib/webhooks/health';
import { formatTime } from './ui';

/**
 * The overview's notice of webhook endpoints that stopped accepting deliveries (issue 38), with
 * what they answered, where to see and resend the deliveries, and, while retries are off, the
 * setting that would send a failed delivery again.
 */
export function WebhookHealthNotice({ failing, retries }: { failing: FailingEndpoint[]; retries: boolean }) {
  if (failing.length === 0) return null;
  return (
    <section aria-labelledby="webhook-health-heading" className="rounded-md border border-red-300 bg-red-50 p-3 text-sm text-red-950 dark:border-red-800 dark:bg-red-950 dark:text-red-50" data-testid="webhook-health">
      <h2 id="webhook-health-heading" className="font-semibold">
        Webhook deliveries are failing
      </h2>
      <ul className="mt-1 space-y-1">
        {failing.map((f) => (
          <li key={f.url}>
            <code className="break-all">{f.url}</code>: {f.failedInRow === 1 ? 'the latest delivery' : `the last ${f.failedInRow} deliveries`} failed (since {formatTime(f.since)})
            {f.lastStatus !== null ? `, last answer HTTP ${f.lastStatus}` : f.lastError ? `: ${f.lastError}` : ''}.
          </li>
        ))}
      </ul>
      <p className="mt-1">
        Your system did not hear about these invoices. See and resend them in{' '}
        <Link className="font-medium underline" href="/dashboard/webhooks">
          Webhooks
        </Link>
        .
        {!retries && (
          <>
            {' '}
            Retries are off, so a failed delivery is not sent again: turn on &quot;Retry failed webhooks&quot; in{' '}
            <Link className="font-medium underline" href="/dashboard/settings">
              Settings
            </Link>
            .
          </>
        )}
      </p>
    </section>
  );
}
