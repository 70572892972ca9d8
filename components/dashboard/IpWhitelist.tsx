'use client';

import { useMutation, useQueryClient } from '@tanstack/react-query';
import { type FormEvent } from 'react';
import type { SettingsJson } from '@/lib/merchants/settings';
import { dashboardApi, queryString, RequestError } from './api';
import { SubmitButton } from './SubmitButton';
import { Button, Card, Field, FieldError, Mono } from './ui';

export function IpWhitelist({ rules }: { rules: string[] }) {
  const client = useQueryClient();
  const edit = useMutation({
    mutationFn: ({ method, rule }: { method: 'POST' | 'DELETE'; rule: string }) =>
      method === 'POST' ? dashboardApi<SettingsJson>('/settings/ip-whitelist', { method, body: { rule } }) : dashboardApi<SettingsJson>(`/settings/ip-whitelist${queryString({ rule })}`, { method }),
    onSuccess: (data) => client.setQueryData(['settings'], data),
  });
  const errors = edit.error instanceof RequestError ? edit.error.errors.rule : undefined;

  function add(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    const form = e.currentTarget;
    edit.mutate({ method: 'POST', rule: String(new FormData(form).get('rule')) }, { onSuccess: () => form.reset() });
  }

  return (
    <Card title="API IP whitelist">
      <p className="mb-3 text-sm text-slate-600 dark:text-slate-400">
        {rules.length === 0 ? 'Empty: API keys work from any IP.' : 'API calls from other IPs are refused with 403 Invalid API key.'}
      </p>
      <ul aria-label="Whitelisted IPs" className="mb-4 divide-y divide-slate-200 dark:divide-slate-800">
        {rules.map((rule) => (
          <li key={rule} className="flex items-center justify-between py-2">
            <Mono>{rule}</Mono>
            <Button variant="secondary" aria-label={`Remove ${rule}`} onClick={() => edit.mutate({ method: 'DELETE', rule })}>
              Remove
            </Button>
          </li>
        ))}
      </ul>
      <form onSubmit={add} className="flex items-end gap-2">
        <div className="flex-1">
          <Field label="IP address or CIDR range" name="rule" placeholder="203.0.113.7 or 10.0.0.0/8" required error={errors} />
        </div>
        <SubmitButton disabled={edit.isPending}>
          Add
        </SubmitButton>
      </form>
      {!errors && <FieldError messages={edit.error ? [edit.error.message] : undefined} />}
    </Card>
  );
}
