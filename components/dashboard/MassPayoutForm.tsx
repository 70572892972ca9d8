'use client';

import { useMutation, useQueryClient } from '@tanstack/react-query';
import Link from 'next/link';
import { useState, type FormEvent, type ReactNode } from 'react';
import type { InvoiceJson } from '@/lib/invoices/serialize';
import { CURRENCIES, tokenAmountText, tokenUnits, type Currency } from '@/lib/money/tokens';
import { MAX_PAYOUT_TARGETS } from '@/lib/payouts/limits';
import type { PayoutEstimateJson, PayoutTargetInput } from '@/lib/payouts/schemas';
import { dashboardApi, RequestError } from './api';
import { SubmitButton } from './SubmitButton';
import { PayoutTopUp } from './PayoutTopUp';
import { Button, Card, Facts, FieldError, formatTime, inputClass, Select } from './ui';

interface PayoutRequest {
  // A line without an amount is sent without one, so the API names what is missing.
  body: { currency: Currency; target_wallets: (Pick<PayoutTargetInput, 'address'> & { amount?: string })[] };
  /** The textarea line (1-based) of each target, to name lines in the API's errors. */
  lines: number[];
}

/**
 * One target per non-blank line: the address, then a comma, semicolon, tab or
 * spaces, then the amount as typed. Nothing is checked here: the API validates
 * addresses and amounts (exact decimals, at most 6 places) and names the index.
 */
function parseTargets(text: string): Pick<PayoutRequest, 'lines'> & { targets: PayoutRequest['body']['target_wallets'] } {
  const targets: PayoutRequest['body']['target_wallets'] = [];
  const lines: number[] = [];
  text.split(/\r?\n/).forEach((raw, i) => {
    const line = raw.trim();
    if (!line) return;
    const cut = line.search(/[\s,;]/);
    const address = cut < 0 ? line : line.slice(0, cut);
    const amount = cut < 0 ? '' : line.slice(cut).replace(/^[\s,;]+/, '');
    targets.push(amount ? { address, amount } : { address });
    lines.push(i + 1);
  });
  return { targets, lines };
}

/** `target_wallets[3].amount` → "Line 4, amount: …"; list-level and other errors keep their field. */
function describeErrors(errors: Record<string, string[]>, lines: number[]): { targets: string[]; currency?: string[]; other: string[] } {
  const targets: string[] = [];
  const other: string[] = [];
  for (const [field, messages] of Object.entries(errors)) {
    const indexed = /^target_wallets\[(\d+)\](?:\.(\w+))?$/.exec(field);
    if (indexed) {
      const line = lines[Number(indexed[1])] ?? Number(indexed[1]) + 1;
      targets.push(`Line ${line}${indexed[2] ? `, ${indexed[2]}` : ''}: ${messages.join(' ')}`);
    } else if (field === 'target_wallets') targets.push(...messages);
    else if (field !== 'currency') other.push(...messages);
  }
  return { targets, currency: errors.currency, other };
}

/**
 * The estimate as lines that add up to the top-up (issue 26): the amounts sent, the service
 * fee, the network fee as estimated (it includes activating targets that are not accounts yet),
 * the gas margin on it (the API's `cost` less the two fees, GAS_MARGIN_PERCENT) and, for USDT,
 * activating the payout's own address. The API's answer is unchanged; only its presentation.
 */
function EstimateLines({ estimate }: { estimate: PayoutEstimateJson }) {
  const token = estimate.currency;
  const sentUnits = estimate.target_wallets.reduce((sum, t) => sum + tokenUnits(t.amount), 0n);
  const marginUnits = tokenUnits(estimate.cost) - tokenUnits(estimate.service_fee) - tokenUnits(estimate.network_fee);
  const activating = estimate.accounts_to_activate;
  const money = (id: string, units: bigint | number) => (
    <span className="whitespace-nowrap">
      <span data-testid={`payout-estimate-${id}`}>{typeof units === 'bigint' ? tokenAmountText(units) : units}</span> {token}
    </span>
  );
  const lines: [string, ReactNode][] = [
    [`Sent to ${estimate.target_wallets.length} target${estimate.target_wallets.length === 1 ? '' : 's'}`, <>{money('sent', sentUnits)} ({estimate.amount} USD)</>],
    ['Service fee', money('service-fee', estimate.service_fee)],
    [
      'Network fee (estimate)',
      <>
        {money('network-fee', estimate.network_fee)}
        {activating > 0 && <span className="block text-xs text-slate-600 dark:text-slate-400">includes activating {activating} new account{activating === 1 ? '' : 's'}</span>}
      </>,
    ],
    ['Gas margin on the network fee', money('margin', marginUnits)],
  ];
  // Only a USDT payout pays it (its own address is activated by the gas wallet's first transfer); never shown as 0.
  if (estimate.activation_cost > 0) lines.push(['Activating the payout address', money('activation', estimate.activation_cost)]);
  lines.push(['Top-up to send', <strong key="t">{money('topup', estimate.topup_amount)}</strong>]);
  // What the payout will report as its cost once it ends: fixed now, whatever the sends really burn (issue 38:
  // the estimate said 0.405 USDT, the completed payout 0.655, the difference the payout address's activation).
  const totalFeeUnits = tokenUnits(estimate.cost) + tokenUnits(estimate.activation_cost);
  lines.push(['Total fee', <strong key="f">{money('total-fee', totalFeeUnits)}</strong>]);
  return (
    <div className="grid gap-2">
      <Facts label="Payout estimate" rows={lines} />
      <p className="text-xs text-slate-600 dark:text-slate-400">
        The total fee is fixed when the payout is created: it is what the payout reports as its cost when it ends (the service fee, network fee and margin, the API&apos;s <code>cost</code>
        {estimate.activation_cost > 0 ? ', and activating the payout address' : ''}). What the network really burns is shown on the payout as its network cost. Resources:{' '}
        {estimate.need_energy.toLocaleString('en')} energy, {estimate.need_bandwidth.toLocaleString('en')} bytes of bandwidth.
      </p>
    </div>
  );
}

/**
 * A mass payout from the browser: estimate the cost (spec 2.6), then create the
 * MULTIPLE_TRANSFER invoice for exactly the input that was estimated.
 */
export function MassPayoutForm() {
  const client = useQueryClient();
  const [currency, setCurrency] = useState<Currency>('TRX');
  const [text, setText] = useState('');
  const estimate = useMutation({
    mutationFn: (req: PayoutRequest) => dashboardApi<PayoutEstimateJson>('/payouts/estimate', { method: 'POST', body: req.body }),
  });
  const create = useMutation({
    mutationFn: (req: PayoutRequest) => dashboardApi<InvoiceJson>('/payouts', { method: 'POST', body: req.body }),
    onSuccess: () => {
      estimate.reset();
      return client.invalidateQueries({ queryKey: ['invoices'] });
    },
  });

  const { targets, lines } = parseTargets(text);
  const request: PayoutRequest = { body: { currency, target_wallets: targets }, lines };
  const key = JSON.stringify(request.body);
  // The estimate shown is for exactly this input; any edit asks for a new one before creating.
  const estimated = estimate.data && estimate.variables && JSON.stringify(estimate.variables.body) === key ? estimate.data : undefined;
  const failed = create.error ? create : estimate.error ? estimate : undefined;
  const errors = failed?.error instanceof RequestError ? describeErrors(failed.error.errors, failed.variables?.lines ?? []) : { targets: [], other: [] };
  const general = failed?.error && !(failed.error instanceof RequestError && Object.keys(failed.error.errors).length) ? [failed.error.message] : errors.other;

  function runEstimate() {
    create.reset();
    estimate.mutate(request);
  }

  function submit(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    if (estimated) create.mutate(request);
  }

  const created = create.data;
  const token = created?.currency ?? currency;
  return (
    <Card title="Payout details">
      <form onSubmit={submit} className="grid gap-4" aria-label="New mass payout">
        <div className="grid gap-4 md:grid-cols-3">
          <Select label="Payout token" name="payout_currency" value={currency} onChange={(e) => setCurrency(e.target.value as Currency)}>
            {CURRENCIES.map((c) => (
              <option key={c} value={c}>
                {c}
              </option>
            ))}
          </Select>
          <FieldError messages={errors.currency} />
        </div>
        <div>
          <label htmlFor="payout_targets" className="block text-sm font-medium">
            Targets (one &quot;address, amount&quot; per line, at most {MAX_PAYOUT_TARGETS.toLocaleString('en')})
          </label>
          <textarea
            id="payout_targets"
            name="payout_targets"
            rows={6}
            spellCheck={false}
            value={text}
            onChange={(e) => setText(e.target.value)}
            placeholder={'TXYZ…, 12.5\nTABC…, 0.75'}
            aria-invalid={errors.targets.length ? true : undefined}
            aria-describedby="payout_targets-hint payout_targets-error"
            className={`${inputClass} font-mono`}
          />
          <p id="payout_targets-hint" className="mt-1 text-xs text-slate-500 dark:text-slate-400">
            Amounts in the payout token, at most 6 decimals. Up to 1,000 targets; each address once.
          </p>
          {errors.targets.length > 0 && (
            // The alert around the list, not on it: a list with the alert role is no longer a list to assistive technology (axe-core).
            <div id="payout_targets-error" role="alert" aria-label="Target errors">
              <ul className="mt-1 list-disc pl-5 text-sm text-red-600 dark:text-red-400">
                {errors.targets.map((m) => (
                  <li key={m}>{m}</li>
                ))}
              </ul>
            </div>
          )}
        </div>

        {estimated && <EstimateLines estimate={estimated} />}

        <div className="flex flex-wrap items-center gap-3">
          <Button variant="secondary" onClick={runEstimate} disabled={estimate.isPending || create.isPending}>
            {estimate.isPending ? 'Estimating…' : 'Estimate cost'}
          </Button>
          <SubmitButton disabled={!estimated || create.isPending}>Create payout</SubmitButton>
          {!estimated && !created && <span className="text-sm text-slate-500 dark:text-slate-400">Estimate the cost of this input to create the payout.</span>}
          <FieldError messages={general.length ? general : undefined} />
        </div>

        {created && (
          <div role="status" aria-label="Created payout" className="rounded-md border border-emerald-300 bg-emerald-50 p-4 text-sm dark:border-emerald-800 dark:bg-emerald-950">
            <p className="mb-2">
              Payout created as{' '}
              <Link className="text-indigo-600 underline dark:text-indigo-400" href={`/dashboard/invoices/${created.id}`}>
                invoice #{created.id}
              </Link>
              . Send the top-up before {formatTime(created.expired_at)}; the targets are paid once it arrives.
            </p>
            <PayoutTopUp address={created.address} token={token} amount={String(created.currencies_amounts[token])} paymentURL={created.paymentURL} />
          </div>
        )}
      </form>
    </Card>
  );
}
