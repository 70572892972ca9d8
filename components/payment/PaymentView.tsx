'use client';

import { useQuery } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { isPayable } from '@/lib/invoices/payable';
import type { PublicInvoice } from '@/lib/invoices/publicView';
import type { Messages } from '@/lib/i18n/en';
import type { Locale } from '@/lib/i18n';
import type { Currency } from '@/lib/money/tokens';
import type { TrustWalletAssets } from '@/lib/networks';
import { Countdown } from './Countdown';
import { DevnetPayButton } from './DevnetPayButton';
import { LanguagePicker } from './LanguagePicker';
import { PaidReceipt } from './PaidReceipt';
import { ReceiptEmail } from './ReceiptEmail';
import { PayInstructions } from './PayInstructions';
import { PaymentsList } from './PaymentsList';
import { RedirectNotice } from './RedirectNotice';
import { StatusPanel } from './StatusPanel';
import { StoreHeader } from './StoreHeader';
import { TokenSelector } from './TokenSelector';

const OPEN_POLL_MS = 3_000;
// A closed invoice can still change (a late payment after expiry is forwarded), just rarely.
const CLOSED_POLL_MS = 15_000;

async function fetchStatus(id: number, linkKey: string | null): Promise<PublicInvoice> {
  const res = await fetch(`/payment/${id}/status${linkKey ? `?k=${encodeURIComponent(linkKey)}` : ''}`, { cache: 'no-store' });
  if (!res.ok) throw new Error(`status ${res.status}`);
  return (await res.json()) as PublicInvoice;
}

interface Props {
  initial: PublicInvoice;
  /** The paymentURL's key, passed on to the status polls so they see what the page saw. */
  linkKey: string | null;
  t: Messages;
  locale: Locale;
  devnet: boolean;
  /** Trust Wallet's assets for the network's tokens, for the "Open in Trust Wallet" link; null where it has no such network. */
  trustAssets?: TrustWalletAssets | null;
}

/** True once an exact-amount invoice's countdown has ended, by the server's clock. */
function useTimeUp(view: PublicInvoice, skewMs: number): boolean {
  const deadline = Date.parse(view.expired_at);
  const watch = view.type !== 'MULTIPLE' && view.status === 'ACTIVE';
  const [up, setUp] = useState(false);
  useEffect(() => {
    if (!watch) return;
    const check = () => setUp(Date.now() + skewMs >= deadline);
    check();
    const timer = setInterval(check, 500);
    return () => clearInterval(timer);
  }, [watch, deadline, skewMs]);
  return watch && up;
}

export function PaymentView({ initial, linkKey, t, locale, devnet, trustAssets = null }: Props) {
  const query = useQuery({
    queryKey: ['payment', initial.id],
    queryFn: () => fetchStatus(initial.id, linkKey),
    initialData: initial,
    refetchInterval: (q) => (q.state.data?.final ? false : q.state.data?.status === 'ACTIVE' ? OPEN_POLL_MS : CLOSED_POLL_MS),
  });
  const skewMs = Date.parse(query.data.server_time) - query.dataUpdatedAt;
  const timeUp = useTimeUp(query.data, skewMs);
  // At 00:00 the page stops asking for money at once, not at the next poll (issue 26): the
  // server says the same from then on (phase `expired`), and the worker closes the invoice later.
  const view: PublicInvoice = timeUp && isPayable(query.data) ? ({ ...query.data, phase: 'expired' } as PublicInvoice) : query.data;
  const [currency, setCurrency] = useState<Currency>(view.tokens[0]?.currency ?? 'TRX');
  const token = view.tokens.find((tok) => tok.currency === currency) ?? view.tokens[0];
  const payout = view.type === 'MULTIPLE_TRANSFER';
  // A static address takes any amount at any time; an invoice and a payout's top-up ask for an exact amount before expiry.
  const exact = view.type !== 'MULTIPLE';
  const payable = isPayable(view);

  // The time left sits in the top row beside the language picker (issue 38): on a phone it stays on the
  // first screen whatever the merchant's header and the status above the amount take.
  const countdown = payable && token && exact ? <Countdown expiresAt={view.expired_at} skewMs={skewMs} label={payout ? t.payout.expiresIn : t.expiresIn} /> : null;

  return (
    <div className="space-y-3 sm:space-y-4">
      <div className="flex flex-wrap items-center justify-between gap-x-3 gap-y-2">
        {countdown}
        <div className="ml-auto">
          <LanguagePicker locale={locale} label={t.language} />
        </div>
      </div>
      <header className="rounded-xl border border-slate-200 bg-white p-3 sm:p-4 dark:border-slate-700 dark:bg-slate-900">
        {!payout && <StoreHeader merchant={view.merchant} t={t} />}
        <h1 className="text-sm font-medium text-slate-600 dark:text-slate-400">
          {payout ? t.payout.heading : t.heading} #{view.id}
        </h1>
        {payout && payable && <p className="mt-1 text-sm text-slate-700 dark:text-slate-300">{t.payout.intro}</p>}
        {view.description && <p className="mt-1 text-base font-semibold break-words">{view.description}</p>}
        <dl className="mt-2 grid grid-cols-[auto_1fr] gap-x-4 gap-y-1 text-sm empty:hidden">
          {view.order_id && (
            <>
              <dt className="text-slate-600 dark:text-slate-400">{t.orderId}</dt>
              <dd className="text-right font-mono break-all">{view.order_id}</dd>
            </>
          )}
          {view.amount_usd && (
            <>
              <dt className="text-slate-600 dark:text-slate-400">{t.amountUsd}</dt>
              <dd className="text-right text-xl font-bold" data-testid="amount-usd">
                {view.amount_usd} USD
              </dd>
            </>
          )}
        </dl>
      </header>

      <StatusPanel view={view} t={t} />
      {query.isRefetchError && (
        <p role="alert" className="text-sm text-amber-800 dark:text-amber-300">
          {t.liveError}
        </p>
      )}
      {view.redirect_url && <RedirectNotice url={view.redirect_url} t={t} auto={view.phase !== 'overpaid'} />}
      {!view.redirect_url && view.full && view.type === 'SINGLE' && (view.phase === 'completed' || view.phase === 'overpaid') && <PaidReceipt t={t} />}

      {payable && token && (
        <section aria-label={t.payWith} className="space-y-3 rounded-xl border border-slate-200 bg-white p-3 sm:space-y-4 sm:p-4 dark:border-slate-700 dark:bg-slate-900">
          {view.tokens.length > 1 && <TokenSelector tokens={view.tokens.map((tok) => tok.currency)} value={token.currency} onChange={setCurrency} legend={t.payWith} />}
          <PayInstructions view={view} token={token} t={t} trustAssets={trustAssets} />
        </section>
      )}
      {payable && token && devnet && <DevnetPayButton invoiceId={view.id} currency={token.currency} t={t} />}
      {/* Below what paying needs: the first phone screen stays amount, address, countdown and wallet button (issue 38). */}
      {view.receipt_email && linkKey && !['expired', 'canceled', 'error', 'aml_failed'].includes(view.phase) && <ReceiptEmail invoiceId={view.id} linkKey={linkKey} given={view.receipt_email.address} t={t} />}
      {(view.type === 'MULTIPLE' || view.payments.length > 0) && <PaymentsList payments={view.payments} t={t} locale={locale} />}
    </div>
  );
}
