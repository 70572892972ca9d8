import type { PublicInvoice, PublicPayment } from '@/lib/invoices/publicView';
import type { Messages } from '@/lib/i18n/en';
import { fill } from '@/lib/i18n/fill';
import { MerchantContact } from './MerchantContact';

type Phase = PublicInvoice['phase'];

const TONE: Record<Phase, string> = {
  waiting: 'border-sky-300 bg-sky-50 text-sky-950 dark:border-sky-800 dark:bg-sky-950 dark:text-sky-50',
  partial: 'border-amber-300 bg-amber-50 text-amber-950 dark:border-amber-700 dark:bg-amber-950 dark:text-amber-50',
  confirming: 'border-indigo-300 bg-indigo-50 text-indigo-950 dark:border-indigo-700 dark:bg-indigo-950 dark:text-indigo-50',
  paying_out: 'border-indigo-300 bg-indigo-50 text-indigo-950 dark:border-indigo-700 dark:bg-indigo-950 dark:text-indigo-50',
  completed: 'border-emerald-300 bg-emerald-50 text-emerald-950 dark:border-emerald-700 dark:bg-emerald-950 dark:text-emerald-50',
  overpaid: 'border-emerald-300 bg-emerald-50 text-emerald-950 dark:border-emerald-700 dark:bg-emerald-950 dark:text-emerald-50',
  underpaid: 'border-amber-300 bg-amber-50 text-amber-950 dark:border-amber-700 dark:bg-amber-950 dark:text-amber-50',
  expired: 'border-slate-300 bg-slate-100 text-slate-900 dark:border-slate-600 dark:bg-slate-800 dark:text-slate-50',
  canceled: 'border-slate-300 bg-slate-100 text-slate-900 dark:border-slate-600 dark:bg-slate-800 dark:text-slate-50',
  aml_failed: 'border-red-300 bg-red-50 text-red-950 dark:border-red-800 dark:bg-red-950 dark:text-red-50',
  error: 'border-red-300 bg-red-50 text-red-950 dark:border-red-800 dark:bg-red-950 dark:text-red-50',
};

// Phases where the customer needs to know how much arrived and how much is still owed.
const SHOW_AMOUNTS: readonly Phase[] = ['partial', 'underpaid'];
// Phases whose text sends the customer to the merchant: the merchant's contact is shown with them.
const CONTACT: readonly Phase[] = ['underpaid', 'overpaid', 'expired', 'canceled', 'error'];
// Phases where something is under way without the customer: shown with a pulse.
const BUSY: readonly Phase[] = ['confirming', 'paying_out'];

function texts(view: PublicInvoice, t: Messages): { title: string; text: string } {
  // A static address is not waiting for one payment: it takes any amount, any time (issue 26).
  if (view.type === 'MULTIPLE' && view.phase === 'waiting') return { title: t.staticWaiting, text: t.staticWaitingText };
  // Paid in a token the invoice does not take (held for the merchant): not a bare "Waiting for your payment" beside it (issue 38).
  if (view.type === 'SINGLE' && view.phase === 'waiting' && view.payments.some((p) => p.state === 'held' && p.held_reason === 'token')) {
    return { title: fill(t.waitingOtherToken, { currencies: view.tokens.map((tok) => tok.currency).join(` ${t.or} `) }), text: t.waitingOtherTokenText };
  }
  return view.type === 'MULTIPLE_TRANSFER'
    ? { title: t.payout.phase[view.phase], text: t.payout.phaseText[view.phase] }
    : { title: t.phase[view.phase], text: t.phaseText[view.phase] };
}

/**
 * How far the least confirmed payment is from final, in blocks (issue 38: "usually within two minutes"
 * alone left the customer guessing). Only in the full view (the limited one lists no payments).
 */
function ConfirmProgress({ payments, t }: { payments: PublicInvoice['payments']; t: Messages }) {
  const least = payments
    .map((p) => p.confirmations)
    .filter((c) => c !== null)
    .reduce<PublicPayment['confirmations']>((low, c) => (low === null || c.blocks / c.needed < low.blocks / low.needed ? c : low), null);
  if (least === null) return null;
  const label = fill(t.confirmations, { blocks: String(least.blocks), needed: String(least.needed) });
  return (
    <div className="mt-3" data-testid="confirm-progress">
      <div role="progressbar" aria-label={t.confirmationsLabel} aria-valuemin={0} aria-valuemax={least.needed} aria-valuenow={least.blocks} aria-valuetext={label} className="h-2 w-full overflow-hidden rounded-full bg-white/70 dark:bg-slate-700">
        <div className="h-full rounded-full bg-current transition-[width]" style={{ width: `${Math.round((100 * least.blocks) / least.needed)}%` }} />
      </div>
      <p className="mt-1 text-sm">{label}</p>
    </div>
  );
}

/** The live status, announced to screen readers as it changes. */
export function StatusPanel({ view, t }: { view: PublicInvoice; t: Messages }) {
  const paidIn = view.tokens.filter((tok) => tok.received !== '0');
  const { title, text } = texts(view, t);
  // A payout's page is the merchant's own: its texts send the merchant to support, not to itself.
  const contact = view.type !== 'MULTIPLE_TRANSFER' && (CONTACT.includes(view.phase) || view.payments.some((p) => p.state === 'held'));
  return (
    <section role="status" aria-live="polite" data-phase={view.phase} data-testid="payment-status" className={`rounded-xl border p-3 sm:p-4 ${TONE[view.phase]}`}>
      <h2 className="flex items-center gap-2 text-lg font-semibold">
        {BUSY.includes(view.phase) && <span aria-hidden="true" className="inline-block size-3 animate-pulse rounded-full bg-current" />}
        {title}
      </h2>
      <p className="mt-1 text-sm">{text}</p>
      {view.confirming && view.phase !== 'confirming' && <p className="mt-1 text-sm font-medium">{t.confirmingNote}</p>}
      {view.status === 'ACTIVE' && <ConfirmProgress payments={view.payments} t={t} />}
      {view.payments
        .filter((p) => p.state === 'held')
        .map((p) => (
          <p key={`${p.txid}:${p.currency}:${p.amount}`} className="mt-2 text-sm font-medium" data-testid="held-note">
            {fill(t.heldNote, { amount: p.amount, currency: p.currency, reason: t.heldReason[p.held_reason ?? 'other'] })}
          </p>
        ))}
      {view.phase === 'overpaid' && (
        <dl className="mt-3 grid grid-cols-2 gap-x-4 gap-y-1 text-sm">
          <dt>{t.received}</dt>
          <dd className="text-right font-mono font-semibold" data-testid="received">
            {paidIn.map((tok) => `${tok.received} ${tok.currency}`).join(' + ')}
          </dd>
          <dt>{t.extra}</dt>
          <dd className="text-right font-mono font-semibold" data-testid="extra">
            {/* In the token(s) paid: how much more than due arrived (issue 38). */}
            {paidIn.filter((tok) => tok.extra !== null).map((tok) => `${tok.extra} ${tok.currency}`).join(` ${t.or} `)}
          </dd>
        </dl>
      )}
      {SHOW_AMOUNTS.includes(view.phase) && (
        <dl className="mt-3 grid grid-cols-2 gap-x-4 gap-y-1 text-sm">
          <dt>{t.received}</dt>
          <dd className="text-right font-mono font-semibold" data-testid="received">
            {paidIn.map((tok) => `${tok.received} ${tok.currency}`).join(' + ') || '0'}
          </dd>
          <dt>{t.missing}</dt>
          <dd className="text-right font-mono font-semibold" data-testid="missing">
            {/* Alternatives, not a sum: either amount settles the rest ("20 TRX or 5 USDT", issue 26). */}
            {view.tokens.map((tok) => `${tok.missing} ${tok.currency}`).join(` ${t.or} `)}
          </dd>
        </dl>
      )}
      {contact && <MerchantContact merchant={view.merchant} t={t} />}
    </section>
  );
}
