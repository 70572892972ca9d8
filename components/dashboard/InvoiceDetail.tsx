'use client';

import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import Link from 'next/link';
import type { ReactNode } from 'react';
import type { InvoiceDetailJson } from '@/lib/invoices/detail';
import type { InvoiceJson } from '@/lib/invoices/serialize';
import type { PayoutReturnJson } from '@/lib/payouts/returns';
import { dashboardApi } from './api';
import { CopyText } from './CopyText';
import { DeliveryTable } from './DeliveryTable';
import { INVOICE_TYPE_LABELS, labelOf } from './labels';
import { PayoutReturn } from './PayoutReturn';
import { PayoutTargets } from './PayoutTargets';
import { PayoutTopUp } from './PayoutTopUp';
import { Refunds } from './Refunds';
import { StatusBadge } from './StatusBadge';
import { TransactionTable } from './TransactionTable';
import { Card, ConfirmButton, Facts, FieldError, formatTime } from './ui';

interface Latest<T> {
  count: number;
  results: T[];
}

/**
 * The token an invoice's service fee is in: the one it was kept in (`cost_currency`, which the
 * worker writes with the cost). A row without it (written by hand or by an import) still gets a
 * unit: the fee is kept from the payment, so it is in the invoice's only token or the only token
 * that arrived. Never a bare number (issue 26).
 */
function feeToken(inv: InvoiceJson, costCurrency: string | null): string {
  if (costCurrency) return costCurrency;
  if (inv.currencies.length === 1) return inv.currencies[0]!;
  const paidIn = Object.entries(inv.transfer_amounts.input).filter(([, amount]) => amount > 0);
  return paidIn.length === 1 ? paidIn[0]![0] : '(token not recorded)';
}

function MoreNote({ list, href }: { list: Latest<unknown>; href: string }) {
  if (list.count <= list.results.length) return null;
  return (
    <p className="mt-2 text-sm">
      Latest {list.results.length} of {list.count}.{' '}
      <Link className="text-indigo-600 underline dark:text-indigo-400" href={href}>
        See all
      </Link>
    </p>
  );
}

export function InvoiceDetail({ id }: { id: string }) {
  const client = useQueryClient();
  const { data, error } = useQuery({ queryKey: ['invoice', id], queryFn: () => dashboardApi<InvoiceDetailJson & { payout_return: PayoutReturnJson | null }>(`/invoices/${id}`), refetchInterval: 10_000 });
  const cancel = useMutation({
    mutationFn: () => dashboardApi<InvoiceJson>(`/invoices/${id}/cancel`, { method: 'POST' }),
    onSuccess: () => Promise.all([client.invalidateQueries({ queryKey: ['invoice', id] }), client.invalidateQueries({ queryKey: ['invoices'] })]),
  });
  if (error) return <p role="alert">{error.message}</p>;
  if (!data) return <p>Loading…</p>;
  const inv = data.invoice;
  const payout = inv.type === 'MULTIPLE_TRANSFER';
  const facts: [string, ReactNode][] = [
    ['Type', labelOf(INVOICE_TYPE_LABELS, inv.type)],
    ['Amount', inv.type === 'MULTIPLE' ? 'any' : `${inv.amount} USD`],
    // A payout is topped up and sends to its targets; it forwards nothing (issue 38: it said "Forwarded").
    [payout ? 'Top-up due' : 'Due', Object.entries(inv.currencies_amounts).map(([c, a]) => `${a} ${c}`).join(' or ')],
    [payout ? 'Topped up' : 'Received', Object.entries(inv.transfer_amounts.input).map(([c, a]) => `${a} ${c}`).join(', ')],
    [payout ? 'Sent to targets' : 'Forwarded', Object.entries(inv.transfer_amounts.output).map(([c, a]) => `${a} ${c}`).join(', ')],
    // A payout's cost is its whole fee (service, network with margin, activation), in its token.
    payout ? ['Total fee', inv.cost === null ? '—' : `${inv.cost} ${inv.currency}`] : ['Service fee', inv.cost === null ? '—' : `${inv.cost} ${feeToken(inv, data.cost_currency)}`],
    // What the network really cost for its sends (burned TRX and rented energy), whoever paid it: not part of the fee above.
    ['Network cost', `${inv.network_cost_trx} TRX`],
    ['Address', <CopyText key="a" text={inv.address} what="invoice address" />],
    ['Order ID', inv.order_id ?? '—'],
    ['Description', inv.description || '—'],
    ['Webhook URL', inv.webhook_url ?? 'default'],
    ['Payment page', <a key="p" className="text-indigo-600 underline dark:text-indigo-400" href={inv.paymentURL}>{inv.paymentURL}</a>],
    ['Created', formatTime(inv.created_at)],
    ['Expires', formatTime(inv.expired_at)],
  ];

  return (
    <>
      <div className="flex flex-wrap items-center gap-3">
        <h1 className="text-2xl font-semibold">Invoice #{inv.id}</h1>
        <span data-testid="invoice-status">
          <StatusBadge status={inv.status} kind="invoice" />
        </span>
        {data.cancelable && (
          <ConfirmButton variant="danger" className="ml-auto" disabled={cancel.isPending} confirm="Cancel this invoice?" onConfirm={() => cancel.mutate()}>
            Cancel invoice
          </ConfirmButton>
        )}
      </div>
      <FieldError messages={cancel.error ? [cancel.error.message] : undefined} />
      <Card title="Details">
        <Facts rows={facts} />
      </Card>
      {/* An open payout nothing has topped up yet: how to top it up, as where it was created. Once part has arrived, its top-up page says what is left. */}
      {payout && inv.currency && inv.status === 'ACTIVE' && Object.values(inv.transfer_amounts.input).every((a) => a === 0) && (
        <Card title="Top up this payout">
          <PayoutTopUp address={inv.address} token={inv.currency} amount={String(inv.currencies_amounts[inv.currency])} paymentURL={inv.paymentURL} />
        </Card>
      )}
      {payout && <PayoutTargets invoice={inv} returnCard={data.payout_return && <PayoutReturn id={inv.id} info={data.payout_return} status={inv.status} />} />}
      {!payout && <Refunds invoice={inv} />}
      <Card title="Transactions">
        <TransactionTable rows={data.transactions.results} label="Invoice transactions" />
        <MoreNote list={data.transactions} href={`/dashboard/transactions?invoice_id=${inv.id}`} />
      </Card>
      <Card title="Webhook deliveries">
        <DeliveryTable rows={data.deliveries.results} label="Invoice webhook deliveries" />
        <MoreNote list={data.deliveries} href={`/dashboard/webhooks?invoice_id=${inv.id}`} />
      </Card>
    </>
  );
}
