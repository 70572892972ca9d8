'use client';

import { useMutation, useQueryClient } from '@tanstack/react-query';
import Link from 'next/link';
import { useState, type FormEvent } from 'react';
import { MAX_URL_LENGTH } from '@/lib/schemas/url';
import { MAX_DESCRIPTION, MAX_EXPIRY_MINUTES, MAX_ORDER_ID } from '@/lib/invoices/limits';
import type { InvoiceJson } from '@/lib/invoices/serialize';
import { CURRENCIES } from '@/lib/money/tokens';
import { dashboardApi, RequestError } from './api';
import { SubmitButton } from './SubmitButton';
import { Card, Field, FieldError, Select } from './ui';

/** Posts the same body as POST /v1/api/payment/create; the server validates it with the same schema. */
export function CreateInvoiceForm() {
  const client = useQueryClient();
  const [type, setType] = useState('SINGLE');
  const create = useMutation({
    mutationFn: (body: Record<string, unknown>) => dashboardApi<InvoiceJson>('/invoices', { method: 'POST', body }),
    onSuccess: () => client.invalidateQueries({ queryKey: ['invoices'] }),
  });
  const refused = create.error instanceof RequestError ? create.error : undefined;
  // An amount too small to forward: the API's short `reason` ("The minimum for USDT is 2.54 USD.") instead of its long explanation.
  const errors: Record<string, string[]> = refused ? { ...refused.errors, ...(refused.errors.amount && refused.reason && { amount: [refused.reason] }) } : {};
  const single = type === 'SINGLE';

  function submit(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    const form = new FormData(e.currentTarget);
    const text = (name: string) => String(form.get(name) ?? '').trim() || undefined;
    create.mutate({
      type,
      currencies: form.getAll('currencies'),
      ...(single && { amount: text('amount'), expiry_minutes: text('expiry_minutes'), redirect_url: text('redirect_url'), client_comission: form.get('client_comission') === 'on' }),
      order_id: text('order_id'),
      description: text('description'),
      webhook_url: text('webhook_url'),
    });
  }

  return (
    <Card title="Invoice details">
      <form onSubmit={submit} className="grid gap-4 md:grid-cols-3" aria-label="New invoice">
        <Select label="Type" name="type" value={type} onChange={(e) => setType(e.target.value)}>
          <option value="SINGLE">Single payment (an amount, a temporary address)</option>
          <option value="MULTIPLE">Static address (any amount, any number of payments)</option>
        </Select>
        {single && <Field label="Amount (USD)" name="amount" inputMode="decimal" required error={errors.amount} />}
        <fieldset>
          <legend className="block text-sm font-medium">Accepted tokens</legend>
          <div className="mt-2 flex gap-4">
            {CURRENCIES.map((c) => (
              <label key={c} className="flex items-center gap-1 text-sm">
                <input type="checkbox" name="currencies" value={c} defaultChecked className="h-4 w-4" /> {c}
              </label>
            ))}
          </div>
          <FieldError messages={errors.currencies} />
        </fieldset>
        {single && <Field label="Expires after (minutes)" name="expiry_minutes" type="number" min={1} max={MAX_EXPIRY_MINUTES} placeholder="60" error={errors.expiry_minutes} />}
        <Field label="Order ID" name="order_id" maxLength={MAX_ORDER_ID} error={errors.order_id} />
        <Field label="Description" name="description" maxLength={MAX_DESCRIPTION} error={errors.description} />
        <Field label="Webhook URL" name="webhook_url" type="url" maxLength={MAX_URL_LENGTH} placeholder="default from settings" error={errors.webhook_url} />
        {single && <Field label="Redirect URL" name="redirect_url" type="url" maxLength={MAX_URL_LENGTH} error={errors.redirect_url} />}
        {single && (
          <label className="flex items-center gap-2 text-sm">
            <input type="checkbox" name="client_comission" className="h-4 w-4" /> Customer pays the forwarding fee
          </label>
        )}
        <div className="flex items-center gap-3 md:col-span-3">
          <SubmitButton disabled={create.isPending}>
            Create invoice
          </SubmitButton>
          {create.data && (
            <span role="status" className="text-sm">
              Created{' '}
              <Link className="text-indigo-600 underline dark:text-indigo-400" href={`/dashboard/invoices/${create.data.id}`}>
                invoice #{create.data.id}
              </Link>
              : {Object.entries(create.data.currencies_amounts).map(([c, a]) => `${a} ${c}`).join(' or ')}
            </span>
          )}
          <FieldError messages={create.error && !Object.keys(errors).length ? [create.error.message] : undefined} />
        </div>
      </form>
    </Card>
  );
}
