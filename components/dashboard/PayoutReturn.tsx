'use client';

import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import type { PayoutReturnJson } from '@/lib/payouts/returns';
import { dashboardApi } from './api';
import { Card, ConfirmButton, FieldError, formatTime } from './ui';

/**
 * Asks for a payout's return (docs/payouts.md, "Returning a payout"): what remains at its top-up
 * address (a payout that cannot finish, ERROR or TIMEOUT), or only the excess of a COMPLETED one
 * (what arrived beyond its top-up, less the network cost of sending it back; its fee stays), goes
 * to an address the merchant names. The route asks for the password again when the sign-in is not
 * recent (dashboardApi). Shown on the payout's page and in a refund's card (its payout).
 */
export function PayoutReturnForm({ id, info, status }: { id: number; info: PayoutReturnJson; status: string }) {
  const client = useQueryClient();
  const [address, setAddress] = useState('');
  const excess = status === 'COMPLETED';
  const request = useMutation({
    mutationFn: (body: { address: string }) => dashboardApi<{ return_address: string }>(`/payouts/${id}/return`, { method: 'POST', body }),
    // The page's figures (the excess, the return asked for) are read again.
    onSuccess: () => client.invalidateQueries(),
  });
  if (info.return) {
    return (
      <p className="text-sm" data-testid="payout-return-requested">
        {info.return.returned_at
          ? `Returned to ${info.return.address} (${formatTime(info.return.returned_at)}).`
          : `Return to ${info.return.address} asked for: the worker sends ${excess ? 'the excess' : 'what remains at the top-up address'} once nothing of this payout is in flight.`}
      </p>
    );
  }
  if (request.data) {
    return (
      <p className="text-sm" data-testid="payout-return-requested">
        Return to {request.data.return_address} asked for: the worker sends {excess ? 'the excess' : 'what remains at the top-up address'} once nothing of this payout is in flight.
      </p>
    );
  }
  if (!info.returnable) return null;
  const what = excess ? `${info.excess} ${info.currency}` : 'what remains';
  return (
    <>
      <div className="flex flex-wrap items-center gap-1 text-sm">
        <span>
          {excess
            ? `Send the ${info.excess} ${info.currency} that arrived beyond the top-up (less the network cost of sending it; the fee stays) to:`
            : 'Send what remains at the top-up address (the unpaid amounts, and TRX sent there by mistake) to:'}
        </span>
        <input aria-label={`Return payout #${id} to address`} className="rounded border px-1" placeholder="T..." value={address} onChange={(e) => setAddress(e.target.value)} />
        <ConfirmButton disabled={request.isPending || !address} confirm={`Return ${what} to ${address}?`} onConfirm={() => request.mutate({ address })}>
          Return
        </ConfirmButton>
      </div>
      <FieldError messages={request.error ? [request.error.message] : undefined} />
    </>
  );
}

/** The payout page's card: for a payout that cannot finish, or a COMPLETED one holding an excess (or whose return was asked for). */
export function PayoutReturn({ id, info, status }: { id: number; info: PayoutReturnJson; status: string }) {
  if (!info.returnable && !info.return) return null;
  const excess = status === 'COMPLETED';
  return (
    <Card title={excess ? 'Return the excess' : 'Return the payout'}>
      {excess && info.excess > 0 && (
        <p className="mb-2 text-sm" data-testid="payout-excess">
          <strong>
            {info.excess} {info.currency}
          </strong>{' '}
          arrived beyond this payout&apos;s top-up and waits at its top-up address.
        </p>
      )}
      <PayoutReturnForm id={id} info={info} status={status} />
    </Card>
  );
}
