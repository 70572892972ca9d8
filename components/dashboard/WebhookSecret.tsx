'use client';

import { useMutation } from '@tanstack/react-query';
import { useState } from 'react';
import { dashboardApi } from './api';
import { Button, Card, ConfirmButton, FieldError, Mono } from './ui';

type Secret = { secret: string; standard_webhooks_secret: string };

export function WebhookSecret() {
  const [secret, setSecret] = useState<Secret | null>(null);
  const show = useMutation({ mutationFn: () => dashboardApi<Secret>('/settings/webhook-secret'), onSuccess: setSecret });
  const rotate = useMutation({ mutationFn: () => dashboardApi<Secret>('/settings/webhook-secret', { method: 'POST' }), onSuccess: setSecret });

  return (
    <Card title="Webhook signing secret">
      <p className="mb-3 text-sm text-slate-600 dark:text-slate-400">
        Each webhook carries <Mono>X-Webhook-Signature: t=…,v1=HMAC-SHA256(secret, &quot;t.body&quot;)</Mono> and the
        Standard Webhooks headers (<Mono>webhook-id</Mono>, <Mono>webhook-timestamp</Mono>, <Mono>webhook-signature</Mono>):
        give the <Mono>whsec_</Mono> form to a Standard Webhooks library.
      </p>
      <div className="mb-3 min-h-6" aria-live="polite">
        {secret ? (
          <div className="space-y-1">
            <div><Mono>{secret.secret}</Mono></div>
            <div><Mono>{secret.standard_webhooks_secret}</Mono></div>
          </div>
        ) : (
          <span className="text-sm text-slate-500">Hidden</span>
        )}
      </div>
      <div className="flex gap-2">
        <Button variant="secondary" onClick={() => (secret ? setSecret(null) : show.mutate())} disabled={show.isPending}>
          {secret ? 'Hide secret' : 'Show secret'}
        </Button>
        <ConfirmButton variant="danger" confirm="Rotate the signing secret? Receivers that verify with the old one will reject new webhooks." onConfirm={() => rotate.mutate()} disabled={rotate.isPending}>
          Rotate secret
        </ConfirmButton>
      </div>
      <FieldError messages={[show.error, rotate.error].filter((e) => e !== null).map((e) => e.message)} />
    </Card>
  );
}
