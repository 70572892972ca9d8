'use client';

import { useMutation } from '@tanstack/react-query';
import { useState } from 'react';
import { dashboardApi } from './api';
import { Card, ConfirmButton, FieldError } from './ui';

/**
 * A payout that cannot finish (ERROR or TIMEOUT): what remains at its top-up address goes back
 * to an address the merchant names (docs/payouts.md, "Returning a payout"). The route asks for
 * the password again when the sign-in is not recent (dashboardApi).
 */
export function PayoutReturn({ id }: { id: number }) {
  const [address, setAddress] = useState('');
  const request = useMutation({
    mutationFn: (body: { address: string }) => dashboardApi<{ return_address: string }>(`/payouts/${id}/return`, { method: 'POST', body }),
  });
  return (
    <Card title="Return the payout">
      {request.data ? (
        <p className="text-sm" data-testid="payout-return-requested">
          Return to {request.data.return_address} asked for: the worker sends what remains at the top-up address once nothing of this payout is in flight.
        </p>
      ) : (
        <div className="flex flex-wrap items-center gap-1 text-sm">
          <span>Send what remains at the top-up address (the unpaid amounts, and TRX sent there by mistake) to:</span>
          <input aria-label="Return payout to address" className="rounded border px-1" placeholder="T..." value={address} onChange={(e) => setAddress(e.target.value)} />
          <ConfirmButton disabled={request.isPending || !address} confirm={`Return what remains to ${address}?`} onConfirm={() => request.mutate({ address })}>
            Return
          </ConfirmButton>
        </div>
      )}
      <FieldError messages={request.error ? [request.error.message] : undefined} />
    </Card>
  );
}
