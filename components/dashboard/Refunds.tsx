'use client';

import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import Link from 'next/link';
import { useId, useRef, useState } from 'react';
import { QrCode } from '@/components/payment/QrCode';
import { walletUri } from '@/components/payment/walletUri';
import type { InvoiceJson } from '@/lib/invoices/serialize';
import type { Currency } from '@/lib/money/tokens';
import type { PayoutReturnJson } from '@/lib/payouts/returns';
import type { RefundJson } from '@/lib/refunds/schemas';
import { RequestError, dashboardApi } from './api';
import { CopyText } from './CopyText';
import { StatusBadge } from './StatusBadge';
import { FormDialog } from './FormDialog';
import { PayoutReturnForm } from './PayoutReturn';
import { AddressField, Button, Card, ConfirmButton, Field, FieldError, formatTime, RadioChoices } from './ui';

interface RefundsJson {
  results: RefundJson[];
  /** What is left to refund in each token the invoice takes. */
  refundable: Partial<Record<Currency, number>>;
  /** Each refund's payout's return, by payout id: its excess once it has sent (docs/payouts.md, "Returning the excess"). */
  payout_returns: Record<string, PayoutReturnJson | null>;
}

interface Estimate {
  currency: Currency;
  amount: number;
  cost: number;
  topup_amount: number;
  /** Money the service holds for the invoice that pays for the refund first (0: none). */
  held_amount: number;
  address_known: boolean;
}

type Destination = 'ADDRESS' | 'CLAIM';

/** What arrived beyond the amount due in `currency` on an overpaid invoice: the part a merchant often refunds. */
function overpaidPart(invoice: InvoiceJson, currency: Currency): number | null {
  if (invoice.status !== 'OVERPAID') return null;
  const received = invoice.transfer_amounts.input[currency] ?? 0;
  const due = invoice.currencies_amounts[currency] ?? 0;
  // Both have at most 6 decimals: in micro-units the difference is exact.
  const extra = Math.round(received * 1e6) - Math.round(due * 1e6);
  return extra > 0 ? extra / 1e6 : null;
}

/**
 * An invoice's refunds (docs/refunds.md, docs/dashboard.md "Refunds"): each with where it stands
 * and what the merchant does next (top it up, or send the customer the claim link), and a dialog
 * that makes one: the token, the amount (the whole, or the overpaid part), where it goes (an
 * address, or the customer's claim link), and the cost shown before the merchant confirms.
 */
export function Refunds({ invoice }: { invoice: InvoiceJson }) {
  const client = useQueryClient();
  const id = useId();
  const dialog = useRef<HTMLDialogElement>(null);
  const key = ['refunds', invoice.id];
  const { data, error } = useQuery({ queryKey: key, queryFn: () => dashboardApi<RefundsJson>(`/invoices/${invoice.id}/refunds`), refetchInterval: 10_000 });
  const tokens = (Object.entries(data?.refundable ?? {}) as [Currency, number][]).filter(([, left]) => left > 0);
  const [currency, setCurrency] = useState<Currency | null>(null);
  const token = currency ?? tokens[0]?.[0] ?? null;
  const [amount, setAmount] = useState('');
  const [destination, setDestination] = useState<Destination>('ADDRESS');
  const [address, setAddress] = useState('');
  const [note, setNote] = useState('');
  const body = () => ({ currency: token, amount: amount.trim(), ...(destination === 'ADDRESS' && { address: address.trim() }), ...(note.trim() && { reason: note.trim() }) });
  const estimate = useMutation({ mutationFn: () => dashboardApi<Estimate>(`/invoices/${invoice.id}/refunds/estimate`, { method: 'POST', body: body() }) });
  const create = useMutation({
    mutationFn: () => dashboardApi<RefundJson>(`/invoices/${invoice.id}/refunds`, { method: 'POST', body: body() }),
    onSuccess: () => {
      dialog.current?.close();
      return client.invalidateQueries({ queryKey: key });
    },
  });
  const cancel = useMutation({
    mutationFn: (refundId: number) => dashboardApi<RefundJson>(`/refunds/${refundId}/cancel`, { method: 'POST' }),
    onSuccess: () => client.invalidateQueries({ queryKey: key }),
  });
  // Any change makes the shown cost stale: it is asked again before the merchant can confirm.
  const changed = <T,>(set: (v: T) => void) => (v: T) => {
    set(v);
    estimate.reset();
    create.reset();
  };
  const open = () => {
    estimate.reset();
    create.reset();
    setAmount(String(tokens[0]?.[1] ?? ''));
    setCurrency(tokens[0]?.[0] ?? null);
    dialog.current?.showModal();
  };
  const failed = estimate.error ?? create.error;
  const errors = failed instanceof RequestError ? failed.errors : {};
  const fieldErrorOf = (field: string) => errors[field];
  const otherError = failed && !['amount', 'address', 'currency', 'reason'].some((f) => errors[f]) ? [failed.message] : undefined;
  const left = token ? data?.refundable[token] : undefined;
  const overpaid = token ? overpaidPart(invoice, token) : null;

  return (
    <Card
      title="Refunds"
      actions={
        tokens.length > 0 && (
          <Button variant="secondary" aria-haspopup="dialog" onClick={open}>
            Refund…
          </Button>
        )
      }
    >
      {error && <p role="alert">{error.message}</p>}
      {data && data.results.length === 0 && <p className="text-sm text-slate-600 dark:text-slate-400">No refunds. A refund is sent from a top-up you make, with its network cost; the customer gets the whole amount.</p>}
      <ul className="space-y-3">
        {data?.results.map((r) => (
          <li key={r.id} className="rounded-md border border-slate-200 p-3 text-sm dark:border-slate-800" data-testid="refund">
            <div className="flex flex-wrap items-center gap-2">
              <strong>
                Refund #{r.id}: {r.amount} {r.currency}
              </strong>
              <StatusBadge status={r.status} kind="refund" />
              <span className="text-xs text-slate-600 dark:text-slate-400">{formatTime(r.created_at)}</span>
              {(r.status === 'WAITING_ADDRESS' || r.status === 'WAITING_FUNDS') && (
                <ConfirmButton variant="secondary" className="ml-auto" disabled={cancel.isPending} confirm={`Cancel refund #${r.id}?`} onConfirm={() => cancel.mutate(r.id)}>
                  Cancel refund
                </ConfirmButton>
              )}
            </div>
            {r.reason && <p className="mt-1 text-slate-700 dark:text-slate-300">Note: {r.reason}</p>}
            {r.address && (
              <p className="mt-1">
                To <CopyText text={r.address} what={`refund address ${r.address}`} short />
              </p>
            )}
            {r.status === 'WAITING_ADDRESS' && r.claim_url && (
              <div className="mt-1">
                <p>Send your customer this link; they enter their address there, and you top the refund up then:</p>
                <CopyText text={r.claim_url} what="claim link" />
              </div>
            )}
            {r.funded_from_held && (
              <p className="mt-1" data-testid="refund-held">
                Paid first from {r.funded_from_held.amount} {r.currency} the service held for this invoice ({r.funded_from_held.cost} {r.currency} of the network cost is releasing it).
              </p>
            )}
            {r.status === 'WAITING_FUNDS' && r.funded_from_held && r.topup_amount === 0 && <p className="mt-1">The held money is on its way to the refund: nothing to top up.</p>}
            {r.status === 'WAITING_FUNDS' && r.topup_address && r.topup_amount !== null && r.topup_amount > 0 && (
              <div className="mt-2 flex flex-wrap items-start gap-4">
                <div>
                  <p>
                    Top up <strong>{r.topup_amount} {r.currency}</strong> ({r.funded_from_held ? 'what the held money does not cover' : `${r.amount} for the customer, ${r.cost} network cost`}) to:
                  </p>
                  <CopyText text={r.topup_address} what={`top-up address of refund ${r.id}`} />
                  {r.payout !== null && (
                    <p className="mt-1">
                      <Link className="text-indigo-600 underline dark:text-indigo-400" href={`/dashboard/invoices/${r.payout}`}>
                        Its payout #{r.payout}
                      </Link>
                    </p>
                  )}
                </div>
                <QrCode value={walletUri(r.topup_address, r.currency, String(r.topup_amount))} label={`QR code to top up ${r.topup_amount} ${r.currency} to ${r.topup_address}`} />
              </div>
            )}
            {r.status === 'SENT' && r.trn_hash && (
              <p className="mt-1">
                <Link className="text-indigo-600 underline dark:text-indigo-400" href={`/dashboard/transactions?search=${r.trn_hash}`}>
                  See the transfer
                </Link>
              </p>
            )}
            {r.failure_reason && <p className="mt-1 text-red-700 dark:text-red-400">{r.failure_reason}</p>}
            {r.status === 'SENT' && r.payout !== null && <RefundPayoutExcess payout={r.payout} info={data.payout_returns[String(r.payout)] ?? null} />}
          </li>
        ))}
      </ul>
      <FieldError messages={cancel.error ? [cancel.error.message] : undefined} />

      <FormDialog
        dialogRef={dialog}
        title={`Refund invoice #${invoice.id}`}
        onSubmit={() => (estimate.data ? create.mutate() : estimate.mutate())}
        action={estimate.data ? `Create refund of ${estimate.data.amount} ${estimate.data.currency}` : 'Show the cost'}
        actionDisabled={estimate.isPending || create.isPending || !token || !amount.trim() || (destination === 'ADDRESS' && !address.trim())}
      >
        {tokens.length > 1 && (
          <fieldset className="space-y-1">
            <legend className="font-medium">Token</legend>
            {tokens.map(([c, max]) => (
              <label key={c} className="flex items-center gap-2">
                <input
                  type="radio"
                  name="currency"
                  value={c}
                  checked={token === c}
                  onChange={() => {
                    changed(setCurrency)(c);
                    setAmount(String(max));
                  }}
                />
                {c} (up to {max})
              </label>
            ))}
          </fieldset>
        )}
        <Field
          label={`Amount the customer receives (${token ?? ''})`}
          id={`${id}-amount`}
          name="amount"
          inputMode="decimal"
          autoComplete="off"
          required
          value={amount}
          onChange={(e) => changed(setAmount)(e.target.value)}
          error={fieldErrorOf('amount') ?? fieldErrorOf('currency')}
          hint={left !== undefined ? `Up to ${left} ${token}: what the invoice received, less its other refunds.` : undefined}
        />
        <div className="flex flex-wrap gap-2">
          {left !== undefined && (
            <Button variant="secondary" onClick={() => changed(setAmount)(String(left))}>
              All of it ({left})
            </Button>
          )}
          {overpaid !== null && left !== undefined && overpaid <= left && (
            <Button variant="secondary" onClick={() => changed(setAmount)(String(overpaid))}>
              The overpaid part ({overpaid})
            </Button>
          )}
        </div>
        <RadioChoices
          legend="Where it goes"
          name="destination"
          value={destination}
          onChange={changed(setDestination)}
          choices={[
            { value: 'ADDRESS', label: 'To an address you enter' },
            { value: 'CLAIM', label: 'The customer enters it', hint: 'You get a link to send them; the refund is costed and topped up once they have entered it.' },
          ]}
        />
        {destination === 'ADDRESS' && (
          <AddressField
            label="Customer's address"
            id={`${id}-address`}
            name="address"
            value={address}
            onChange={(e) => changed(setAddress)(e.target.value)}
            error={fieldErrorOf('address')}
            hint="A Tron wallet address. Check it with the customer: a transfer cannot be undone."
          />
        )}
        <Field label="Note (optional, for your records)" id={`${id}-note`} name="reason" maxLength={500} value={note} onChange={(e) => changed(setNote)(e.target.value)} error={fieldErrorOf('reason')} />
        {estimate.data && (
          <p role="status" className="rounded-md bg-slate-100 p-3 dark:bg-slate-800" data-testid="refund-cost">
            {estimate.data.held_amount > 0 && (
              <>
                The {estimate.data.held_amount} {estimate.data.currency} the service holds for this invoice pays for it first (releasing it is in the cost).{' '}
              </>
            )}
            {estimate.data.address_known ? (
              <>
                Network cost <strong>{estimate.data.cost} {estimate.data.currency}</strong>: you top up <strong>{estimate.data.topup_amount} {estimate.data.currency}</strong>, and the customer receives {estimate.data.amount} {estimate.data.currency}. No service fee.
              </>
            ) : (
              <>
                Network cost at most <strong>{estimate.data.cost} {estimate.data.currency}</strong> (known once the customer has entered their address): you then top up at most <strong>{estimate.data.topup_amount} {estimate.data.currency}</strong>. No service fee.
              </>
            )}
          </p>
        )}
        <FieldError messages={otherError} />
      </FormDialog>
    </Card>
  );
}

/** A sent refund whose payout was topped up with more than it needed: the excess, returned from here as from the payout's page. */
function RefundPayoutExcess({ payout, info }: { payout: number; info: PayoutReturnJson | null }) {
  if (!info || (info.excess <= 0 && !info.return)) return null;
  return (
    <div className="mt-2" data-testid="refund-payout-excess">
      {info.excess > 0 && (
        <p>
          <strong>
            {info.excess} {info.currency}
          </strong>{' '}
          more than needed arrived at its top-up address (
          <Link className="text-indigo-600 underline dark:text-indigo-400" href={`/dashboard/invoices/${payout}`}>
            payout #{payout}
          </Link>
          ).
        </p>
      )}
      <PayoutReturnForm id={payout} info={info} status="COMPLETED" />
    </div>
  );
}
