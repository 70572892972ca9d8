'use client';

import { useMutation, useQueryClient } from '@tanstack/react-query';
import Link from 'next/link';
import { useId, useRef, useState } from 'react';
import type { ReleaseJson } from '@/lib/transactions/releases';
import { RequestError, dashboardApi } from './api';
import { CopyText } from './CopyText';
import { FormDialog } from './FormDialog';
import { AddressField, Button, FieldError, RadioChoices } from './ui';

interface Held {
  hash: string;
  reason: string;
  amount: number;
  currency: string;
  invoice: number | null;
}

/**
 * Held funds (docs/worker.md, "Held funds"): the reason, and a labelled dialog with the merchant's
 * two ways out (issue 38, item 3): forward them to the payout wallet as they are, or return them to
 * an address, which the server checks as every address money goes to (a wallet, not a contract).
 * The outcome then shows on the row (ReleaseOutcome).
 */
export function ReleaseHeld({ hash, reason, amount, currency, invoice }: Held) {
  const client = useQueryClient();
  const id = useId();
  const dialog = useRef<HTMLDialogElement>(null);
  const [action, setAction] = useState<'FORWARD' | 'REFUND'>('FORWARD');
  const [address, setAddress] = useState('');
  const release = useMutation({
    mutationFn: (body: { action: 'FORWARD' } | { action: 'REFUND'; address: string }) => dashboardApi(`/transactions/${hash}/release`, { method: 'POST', body }),
    onSuccess: () => {
      dialog.current?.close();
      return client.invalidateQueries();
    },
  });
  const what = `${amount} ${currency}`;
  const open = () => {
    release.reset();
    dialog.current?.showModal();
  };
  const fieldError = release.error instanceof RequestError ? release.error.errors.address : undefined;
  return (
    <div className="mt-1 flex min-w-[16rem] flex-col items-start gap-1 whitespace-normal text-xs">
      <span>
        <strong>HELD</strong>: {reason}
      </span>
      <Button variant="secondary" aria-haspopup="dialog" onClick={open}>
        Release {what}…
      </Button>
      <FormDialog
        dialogRef={dialog}
        title={`Release ${what} held${invoice !== null ? ` on invoice #${invoice}` : ''}`}
        onSubmit={() => release.mutate(action === 'FORWARD' ? { action } : { action, address: address.trim() })}
        action={action === 'FORWARD' ? `Forward ${what}` : `Return ${what}`}
        actionDisabled={release.isPending || (action === 'REFUND' && !address.trim())}
      >
        <p className="text-slate-700 dark:text-slate-300">Held because: {reason}</p>
        <RadioChoices
          legend="What to do with it"
          name="action"
          value={action}
          onChange={setAction}
          choices={[
            { value: 'FORWARD', label: 'Forward to your payout wallet', hint: 'As any payment: the service fee and the network cost are taken out.' },
            { value: 'REFUND', label: 'Return to an address', hint: 'The network cost is taken out of what is returned.' },
          ]}
        />
        {action === 'REFUND' && (
          <AddressField
            label="Return to address"
            id={`${id}-address`}
            name="address"
            value={address}
            onChange={(e) => setAddress(e.target.value)}
            error={fieldError}
            hint="A Tron wallet address. Check it with the customer: a transfer cannot be undone."
          />
        )}
        <FieldError messages={release.error && !fieldError ? [release.error.message] : undefined} />
      </FormDialog>
    </div>
  );
}

const OUTCOME = {
  IN_PROGRESS: (r: ReleaseJson) => (r.action === 'FORWARD' ? 'Released: being forwarded' : 'Released: being returned'),
  FORWARDED: () => 'Released: forwarded',
  RETURNED: () => 'Released: returned',
  FAILED: () => 'Released: the send failed; the funds are still at the address',
} as const;

/** What became of funds the merchant released: in progress, forwarded or returned, to where, and the transfer that moved them. */
export function ReleaseOutcome({ release }: { release: ReleaseJson }) {
  return (
    <div className="mt-1 flex min-w-[16rem] flex-col gap-1 whitespace-normal text-xs" data-testid="release-outcome">
      <span>
        <strong>{OUTCOME[release.state](release)}</strong>
        {release.to_address && (
          <>
            {' '}
            to <CopyText text={release.to_address} what={`release address ${release.to_address}`} short />
          </>
        )}
      </span>
      {release.sent && (
        <span className="flex flex-wrap gap-2">
          <Link className="text-indigo-600 underline dark:text-indigo-400" href={`/dashboard/transactions?search=${release.sent.trn_hash}`}>
            See the transfer
          </Link>
          {release.sent.explorer_url && (
            <a className="text-indigo-600 underline dark:text-indigo-400" href={release.sent.explorer_url} target="_blank" rel="noopener noreferrer">
              View on the block explorer
            </a>
          )}
        </span>
      )}
    </div>
  );
}
