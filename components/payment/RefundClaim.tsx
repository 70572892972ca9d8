'use client';

import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import type { Locale } from '@/lib/i18n';
import type { Messages } from '@/lib/i18n/en';
import { fill } from '@/lib/i18n/fill';
import type { RefundClaimView } from '@/lib/refunds/claim';
import type { RefundStatus } from '@/lib/refunds/schemas';
import { LanguagePicker } from './LanguagePicker';
import { MerchantContact } from './MerchantContact';
import { StoreHeader } from './StoreHeader';

const POLL_MS = 3_000;
const FINAL: readonly RefundStatus[] = ['SENT', 'FAILED', 'CANCELED'];

const TONE: Record<RefundStatus, string> = {
  WAITING_ADDRESS: 'border-indigo-300 bg-indigo-50 text-indigo-950 dark:border-indigo-700 dark:bg-indigo-950 dark:text-indigo-100',
  WAITING_FUNDS: 'border-slate-300 bg-white text-slate-900 dark:border-slate-700 dark:bg-slate-900 dark:text-slate-100',
  SENDING: 'border-sky-300 bg-sky-50 text-sky-950 dark:border-sky-700 dark:bg-sky-950 dark:text-sky-100',
  SENT: 'border-green-300 bg-green-50 text-green-950 dark:border-green-700 dark:bg-green-950 dark:text-green-100',
  FAILED: 'border-red-300 bg-red-50 text-red-950 dark:border-red-700 dark:bg-red-950 dark:text-red-100',
  CANCELED: 'border-slate-300 bg-slate-100 text-slate-900 dark:border-slate-700 dark:bg-slate-800 dark:text-slate-100',
};

/** A refused claim as the page shows it: under the field, or as a look-alike to confirm. */
class ClaimRefused extends Error {
  constructor(
    message: string,
    readonly field: string | null,
    readonly lookalike: boolean,
  ) {
    super(message);
  }
}

const url = (id: number, key: string, what: 'status' | 'claim') => `/payment/refund/${id}/${what}?k=${encodeURIComponent(key)}`;

async function fetchView(id: number, key: string): Promise<RefundClaimView> {
  const res = await fetch(url(id, key, 'status'), { cache: 'no-store' });
  if (!res.ok) throw new Error(`status ${res.status}`);
  return (await res.json()) as RefundClaimView;
}

async function postClaim(id: number, key: string, body: { address: string; confirm: boolean }): Promise<RefundClaimView> {
  const res = await fetch(url(id, key, 'claim'), { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const json = (await res.json().catch(() => ({}))) as { detail?: string; errors?: Record<string, string[]>; reason?: string };
  if (res.ok) return json as unknown as RefundClaimView;
  const field = json.errors?.address?.[0];
  throw new ClaimRefused(field ?? json.detail ?? `HTTP ${res.status}`, field ? 'address' : null, json.reason === 'address_lookalike');
}

/**
 * The customer's claim page of a refund (docs/refunds.md): what the merchant refunds, a field for
 * the customer's address while it has none, then how far the refund has gone, polled.
 */
export function RefundClaim({ initial, claimKey, t, locale }: { initial: RefundClaimView; claimKey: string; t: Messages; locale: Locale }) {
  const client = useQueryClient();
  const query = useQuery({
    queryKey: ['refund', initial.id],
    queryFn: () => fetchView(initial.id, claimKey),
    initialData: initial,
    refetchInterval: (q) => (q.state.data && FINAL.includes(q.state.data.status) ? false : POLL_MS),
  });
  const view = query.data;
  const [address, setAddress] = useState('');
  const claim = useMutation({
    mutationFn: (confirm: boolean) => postClaim(view.id, claimKey, { address: address.trim(), confirm }),
    onSuccess: (next) => client.setQueryData(['refund', view.id], next),
  });
  const refused = claim.error instanceof ClaimRefused ? claim.error : null;
  const submit = (e: FormEvent) => {
    e.preventDefault();
    claim.mutate(false);
  };

  return (
    <div className="space-y-4">
      <LanguagePicker locale={locale} label={t.language} />
      <header className="rounded-xl border border-slate-200 bg-white p-4 dark:border-slate-700 dark:bg-slate-900">
        <StoreHeader merchant={view.merchant} t={t} />
        <h1 className="text-sm font-medium text-slate-600 dark:text-slate-400">
          {t.refund.heading} #{view.id}
        </h1>
        <p className="mt-1 text-sm text-slate-700 dark:text-slate-300">{fill(t.refund.forInvoice, { invoice: String(view.invoice) })}</p>
        <dl className="mt-2 grid grid-cols-[auto_1fr] gap-x-4 gap-y-1 text-sm">
          <dt className="text-slate-600 dark:text-slate-400">{t.refund.amount}</dt>
          <dd className="text-right text-xl font-bold" data-testid="refund-amount">
            {view.amount} {view.currency}
          </dd>
          {view.address && (
            <>
              <dt className="text-slate-600 dark:text-slate-400">{t.refund.toAddress}</dt>
              <dd className="text-right font-mono text-xs break-all" data-testid="refund-address">
                {view.address}
              </dd>
            </>
          )}
        </dl>
      </header>

      <section role="status" aria-live="polite" className={`rounded-xl border p-4 ${TONE[view.status]}`} data-testid="refund-status">
        <h2 className="text-lg font-semibold">{t.refund.status[view.status]}</h2>
        <p className="mt-1 text-sm">{fill(t.refund.statusText[view.status], { amount: view.amount, currency: view.currency })}</p>
        {view.sent && (
          <p className="mt-2 text-sm">
            <span>{t.transaction}: </span>
            {view.sent.explorer_url ? (
              <a href={view.sent.explorer_url} target="_blank" rel="noopener noreferrer" className="font-mono break-all underline">
                {view.sent.trn_hash}
              </a>
            ) : (
              <span className="font-mono break-all">{view.sent.trn_hash}</span>
            )}
          </p>
        )}
        {(view.status === 'FAILED' || view.status === 'CANCELED') && <MerchantContact merchant={view.merchant} t={t} />}
      </section>
      {query.isRefetchError && (
        <p role="alert" className="text-sm text-amber-800 dark:text-amber-300">
          {t.liveError}
        </p>
      )}

      {view.claimable && (
        <form onSubmit={submit} className="space-y-3 rounded-xl border border-slate-200 bg-white p-4 dark:border-slate-700 dark:bg-slate-900" noValidate>
          <div>
            <label htmlFor="refund-address" className="block text-sm font-medium">
              {t.refund.addressLabel}
            </label>
            <input
              id="refund-address"
              name="address"
              value={address}
              onChange={(e) => {
                setAddress(e.target.value);
                claim.reset();
              }}
              autoComplete="off"
              spellCheck={false}
              placeholder="T..."
              aria-describedby={`refund-address-hint${refused?.field ? ' refund-address-error' : ''}`}
              aria-invalid={refused?.field ? true : undefined}
              className="mt-1 block w-full rounded-md border border-slate-300 bg-white px-3 py-2 font-mono text-sm dark:border-slate-600 dark:bg-slate-950"
            />
            <p id="refund-address-hint" className="mt-1 text-xs text-slate-600 dark:text-slate-400">
              {t.refund.addressHint}
            </p>
            {refused?.field && (
              <p id="refund-address-error" role="alert" className="mt-1 text-sm text-red-700 dark:text-red-400">
                {refused.message}
              </p>
            )}
          </div>
          {refused?.lookalike && (
            <div role="alert" className="rounded-md border border-amber-300 bg-amber-50 p-3 text-sm text-amber-950 dark:border-amber-700 dark:bg-amber-950 dark:text-amber-100" data-testid="refund-lookalike">
              <p className="font-semibold">{t.refund.lookalikeTitle}</p>
              <p className="mt-1 break-words">{refused.message}</p>
              <button type="button" onClick={() => claim.mutate(true)} disabled={claim.isPending} className="mt-2 rounded-md border border-amber-400 px-3 py-1.5 text-sm font-medium">
                {t.refund.confirmLookalike}
              </button>
            </div>
          )}
          {refused && !refused.field && !refused.lookalike && (
            <p role="alert" className="text-sm text-red-700 dark:text-red-400">
              {refused.message}
            </p>
          )}
          {claim.error && !refused && (
            <p role="alert" className="text-sm text-red-700 dark:text-red-400">
              {claim.error.message}
            </p>
          )}
          <button type="submit" disabled={claim.isPending || !address.trim()} className="w-full rounded-md bg-indigo-600 px-4 py-2 text-sm font-semibold text-white disabled:opacity-50">
            {claim.isPending ? t.refund.submitting : t.refund.submit}
          </button>
        </form>
      )}
    </div>
  );
}
