'use client';

import { useMutation, useQueryClient } from '@tanstack/react-query';
import { fill } from '@/lib/i18n/fill';
import type { Messages } from '@/lib/i18n/en';
import type { Currency } from '@/lib/money/tokens';

/** Development only: asks the web app to pay this invoice from the devnet faucet. */
export function DevnetPayButton({ invoiceId, currency, t }: { invoiceId: number; currency: Currency; t: Messages }) {
  const queryClient = useQueryClient();
  const pay = useMutation({
    mutationFn: async () => {
      const res = await fetch(`/payment/${invoiceId}/devnet-pay`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ currency }),
      });
      const body = (await res.json().catch(() => ({}))) as { detail?: string };
      if (!res.ok) throw new Error(body.detail ?? `HTTP ${res.status}`);
    },
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['payment', invoiceId] }),
  });
  return (
    <section className="rounded-xl border border-dashed border-violet-400 p-3 sm:p-4 dark:border-violet-500">
      <p className="text-sm text-slate-700 dark:text-slate-300">{t.devnetNote}</p>
      <button
        type="button"
        onClick={() => pay.mutate()}
        disabled={pay.isPending}
        className="mt-2 w-full rounded-lg bg-violet-700 px-4 py-2.5 font-semibold text-white hover:bg-violet-800 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-violet-600 disabled:opacity-60 dark:bg-violet-400 dark:text-slate-950 dark:hover:bg-violet-300"
      >
        {pay.isPending ? t.devnetPaying : `${t.devnetPay} (${currency})`}
      </button>
      <p aria-live="polite" className="mt-2 text-sm empty:hidden">
        {pay.isSuccess && t.devnetSent}
        {pay.isError && <span className="text-red-700 dark:text-red-400">{fill(t.devnetFailed, { error: pay.error.message })}</span>}
      </p>
    </section>
  );
}
