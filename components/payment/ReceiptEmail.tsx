'use client';

import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import type { Messages } from '@/lib/i18n/en';
import { fill } from '@/lib/i18n/fill';
import { secondaryButtonClass } from './CopyButton';

/**
 * The optional e-mail for a receipt and, should the merchant refund, the refund's claim link
 * (issue 36). Offered only where the service sends e-mail (the view's `receipt_email`), never
 * needed to pay; the address can be changed or taken back.
 */
export function ReceiptEmail({ invoiceId, linkKey, given, t }: { invoiceId: number; linkKey: string; given: string | null; t: Messages }) {
  const queryClient = useQueryClient();
  const [email, setEmail] = useState(given ?? '');
  const [editing, setEditing] = useState(given === null);
  const save = useMutation({
    mutationFn: async (value: string) => {
      const res = await fetch(`/payment/${invoiceId}/email?k=${encodeURIComponent(linkKey)}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: value }) });
      const body = (await res.json().catch(() => ({}))) as { email?: string | null; detail?: string; errors?: { email?: string[] } };
      if (!res.ok) throw new Error(body.errors?.email?.[0] ?? body.detail ?? t.receiptEmailFailed);
      return body;
    },
    onSuccess: (saved) => {
      // The address as stored (trimmed, lower case), so "Change e-mail" starts from it.
      setEmail(saved.email ?? '');
      setEditing(false);
      void queryClient.invalidateQueries({ queryKey: ['payment', invoiceId] });
    },
  });
  function submit(e: FormEvent) {
    e.preventDefault();
    save.mutate(email.trim());
  }
  const box = 'rounded-xl border border-slate-200 bg-white p-3 text-sm text-slate-700 print:hidden sm:p-4 dark:border-slate-700 dark:bg-slate-900 dark:text-slate-300';
  if (!editing && given !== null) {
    return (
      <div className={box} data-testid="receipt-email">
        <p role="status">{fill(t.receiptEmailSet, { email: given })}</p>
        <button type="button" className={`mt-2 ${secondaryButtonClass}`} onClick={() => setEditing(true)}>
          {t.receiptEmailChange}
        </button>
      </div>
    );
  }
  return (
    <form onSubmit={submit} className={box} aria-label={t.receiptEmailLabel} data-testid="receipt-email">
      <label htmlFor="receipt-email" className="block font-medium">
        {t.receiptEmailLabel}
      </label>
      <p id="receipt-email-hint" className="mt-1 text-xs text-slate-600 dark:text-slate-400">
        {t.receiptEmailHint}
      </p>
      <div className="mt-2 flex gap-2">
        <input
          id="receipt-email"
          type="email"
          autoComplete="email"
          value={email}
          onChange={(e) => setEmail(e.target.value)}
          aria-describedby={save.error ? 'receipt-email-hint receipt-email-error' : 'receipt-email-hint'}
          aria-invalid={save.error ? true : undefined}
          className="min-w-0 flex-1 rounded-md border border-slate-300 px-2 py-1.5 dark:border-slate-600 dark:bg-slate-800"
        />
        <button type="submit" className={secondaryButtonClass} disabled={save.isPending}>
          {t.receiptEmailSave}
        </button>
      </div>
      {save.error && (
        <p id="receipt-email-error" role="alert" className="mt-1 text-red-700 dark:text-red-400">
          {save.error.message}
        </p>
      )}
    </form>
  );
}
