'use client';

import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { dashboardApi } from './api';
import { Button, FieldError } from './ui';

/**
 * Held funds (docs/worker.md, "Held funds"): the reason, and the merchant's two ways
 * out: forward them to the target wallet as they are, or return them to an address.
 */
export function ReleaseHeld({ hash, reason }: { hash: string; reason: string }) {
  const client = useQueryClient();
  const [address, setAddress] = useState('');
  const release = useMutation({
    mutationFn: (body: { action: 'FORWARD' } | { action: 'REFUND'; address: string }) => dashboardApi(`/transactions/${hash}/release`, { method: 'POST', body }),
    onSuccess: () => client.invalidateQueries(),
  });
  return (
    <div className="mt-1 flex min-w-[16rem] flex-col gap-1 whitespace-normal text-xs">
      <span>
        <strong>HELD</strong>: {reason}
      </span>
      <span className="flex flex-wrap items-center gap-1">
        <Button disabled={release.isPending} onClick={() => release.mutate({ action: 'FORWARD' })}>
          Forward
        </Button>
        <input aria-label="Return to address" className="rounded border px-1" placeholder="T... to return to" value={address} onChange={(e) => setAddress(e.target.value)} />
        <Button disabled={release.isPending || !address} onClick={() => release.mutate({ action: 'REFUND', address })}>
          Return
        </Button>
      </span>
      <FieldError messages={release.error ? [release.error.message] : undefined} />
    </div>
  );
}
