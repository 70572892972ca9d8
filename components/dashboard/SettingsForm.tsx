'use client';

import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { MAX_URL_LENGTH } from '@/lib/schemas/url';
import { MAX_AML_RISK_LIMIT, MAX_STORE_NAME, MAX_SUPPORT_EMAIL, MAX_UNDERPAYMENT_TOLERANCE_PERCENT } from '@/lib/merchants/limits';
import type { SettingsJson } from '@/lib/merchants/settings';
import { dashboardApi, RequestError } from './api';
import { SubmitButton } from './SubmitButton';
import { Card, Field, FieldError } from './ui';

export function SettingsForm({ settings }: { settings: SettingsJson }) {
  const client = useQueryClient();
  const [saved, setSaved] = useState(false);
  const save = useMutation({
    mutationFn: (body: Record<string, unknown>) => dashboardApi<SettingsJson>('/settings', { method: 'PATCH', body }),
    onSuccess: (data) => {
      client.setQueryData(['settings'], data);
      setSaved(true);
    },
  });
  const errors = save.error instanceof RequestError ? save.error.errors : {};

  function submit(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    const form = new FormData(e.currentTarget);
    setSaved(false);
    save.mutate({
      target_wallet_address: form.get('target_wallet_address'),
      webhook_url: form.get('webhook_url'),
      aml_check: form.get('aml_check') === 'on',
      webhook_retries: form.get('webhook_retries') === 'on',
      webhook_held_events: form.get('webhook_held_events') === 'on',
      webhook_refund_events: form.get('webhook_refund_events') === 'on',
      aml_risk_limit: form.get('aml_risk_limit'),
      underpayment_tolerance_percent: form.get('underpayment_tolerance_percent'),
    });
  }

  return (
    <>
      <Card title="Payouts and notifications">
        <form onSubmit={submit} className="grid gap-4 md:grid-cols-2">
          <Field
            label="Target wallet address"
            name="target_wallet_address"
            defaultValue={settings.target_wallet_address ?? ''}
            placeholder="T..."
            spellCheck={false}
            error={errors.target_wallet_address}
            hint="Incoming payments are forwarded here."
          />
          <Field label="Default webhook URL" name="webhook_url" type="url" maxLength={MAX_URL_LENGTH} defaultValue={settings.webhook_url ?? ''} placeholder="https://" error={errors.webhook_url} hint="Used when an invoice names none." />
          <div className="md:col-span-2">
            <div className="flex items-center gap-2">
              <input id="webhook_retries" name="webhook_retries" type="checkbox" defaultChecked={settings.webhook_retries} aria-describedby="webhook_retries_hint" className="h-4 w-4" />
              <label htmlFor="webhook_retries" className="text-sm font-medium">
                Retry failed webhooks
              </label>
            </div>
            <p id="webhook_retries_hint" className="mt-1 text-xs text-slate-600 dark:text-slate-400">
              Off: each webhook is sent once, as the API specification says. On: a failed delivery is sent again with growing waits (5 min, 10 min, 20 min, ... up to 12 h) for up to three days, with the same webhook-id; every attempt is in the delivery log.
            </p>
          </div>
          <div className="md:col-span-2">
            <div className="flex items-center gap-2">
              <input id="webhook_held_events" name="webhook_held_events" type="checkbox" defaultChecked={settings.webhook_held_events} aria-describedby="webhook_held_events_hint" className="h-4 w-4" />
              <label htmlFor="webhook_held_events" className="text-sm font-medium">
                Send a webhook when a payment is held
              </label>
            </div>
            <p id="webhook_held_events_hint" className="mt-1 text-xs text-slate-600 dark:text-slate-400">
              Off: only the invoice statuses of the API specification. On: also a signed &quot;payment.held&quot; event (the transaction and why it is held) when money arrives that waits for you to forward or return it: after a cancel, in a token the invoice does not accept, or too small to forward. Held money is always on the overview, and e-mailed where the service sends e-mail.
            </p>
          </div>
          <div className="md:col-span-2">
            <div className="flex items-center gap-2">
              <input id="webhook_refund_events" name="webhook_refund_events" type="checkbox" defaultChecked={settings.webhook_refund_events} aria-describedby="webhook_refund_events_hint" className="h-4 w-4" />
              <label htmlFor="webhook_refund_events" className="text-sm font-medium">
                Send webhooks about refunds
              </label>
            </div>
            <p id="webhook_refund_events_hint" className="mt-1 text-xs text-slate-600 dark:text-slate-400">
              Off: only the invoice statuses of the API specification. On: also signed &quot;refund.created&quot;, &quot;refund.claimed&quot; (the customer entered their address: top the refund up), &quot;refund.sent&quot; and &quot;refund.failed&quot; events with the refund.
            </p>
          </div>
          <div className="flex items-center gap-2">
            <input id="aml_check" name="aml_check" type="checkbox" defaultChecked={settings.aml_check} className="h-4 w-4" />
            <label htmlFor="aml_check" className="text-sm font-medium">
              Check incoming payments for AML risk
            </label>
          </div>
          <Field label={`AML risk limit (0–${MAX_AML_RISK_LIMIT})`} name="aml_risk_limit" type="number" min={0} max={MAX_AML_RISK_LIMIT} step="0.01" defaultValue={settings.aml_risk_limit} error={errors.aml_risk_limit} hint="Payments scoring above it are returned to the sender." />
          <Field
            label={`Accept underpayments up to (%, 0–${MAX_UNDERPAYMENT_TOLERANCE_PERCENT})`}
            name="underpayment_tolerance_percent"
            type="number"
            min={0}
            max={MAX_UNDERPAYMENT_TOLERANCE_PERCENT}
            step="0.01"
            defaultValue={settings.underpayment_tolerance_percent}
            error={errors.underpayment_tolerance_percent}
            hint="A customer whose exchange takes its fee out of the payment sends a little less. An invoice paid within this much of its amount is completed; below it, the payment page asks for the rest until the invoice expires. 0: only the service's own rounding margin. Applies to invoices created from now on."
          />
          <div className="flex items-center gap-3 md:col-span-2">
            <SubmitButton disabled={save.isPending}>
              Save settings
            </SubmitButton>
            {saved && <span role="status" className="text-sm text-green-700 dark:text-green-400">Saved.</span>}
            <FieldError messages={save.error && !Object.keys(errors).length ? [save.error.message] : undefined} />
          </div>
        </form>
      </Card>
      <ProfileForm settings={settings} />
    </>
  );
}

/**
 * The profile customers see on the payment page (issue 26): the store name in its header, and the
 * contact wherever it tells them to contact the merchant. Saved on its own, so a profile edit never
 * resends the wallet (which would ask for the password again).
 */
function ProfileForm({ settings }: { settings: SettingsJson }) {
  const client = useQueryClient();
  const [saved, setSaved] = useState(false);
  const save = useMutation({
    mutationFn: (body: Record<string, unknown>) => dashboardApi<SettingsJson>('/settings', { method: 'PATCH', body }),
    onSuccess: (data) => {
      client.setQueryData(['settings'], data);
      setSaved(true);
    },
  });
  const errors = save.error instanceof RequestError ? save.error.errors : {};

  function submit(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    const form = new FormData(e.currentTarget);
    setSaved(false);
    save.mutate({
      store_name: form.get('store_name'),
      support_email: form.get('support_email'),
      support_url: form.get('support_url'),
      logo_url: form.get('logo_url'),
    });
  }

  return (
    <Card title="Payment page profile">
      <form onSubmit={submit} className="grid gap-4 md:grid-cols-2">
        <Field label="Store name" name="store_name" maxLength={MAX_STORE_NAME} defaultValue={settings.store_name ?? ''} error={errors.store_name} hint="Shown at the top of your payment pages." />
        <Field label="Support e-mail" name="support_email" type="email" maxLength={MAX_SUPPORT_EMAIL} defaultValue={settings.support_email ?? ''} placeholder="support@example.com" error={errors.support_email} hint="Customers are told to write here when a payment needs you (underpaid, expired, held)." />
        <Field label="Support page URL" name="support_url" type="url" maxLength={MAX_URL_LENGTH} defaultValue={settings.support_url ?? ''} placeholder="https://" error={errors.support_url} hint="Linked beside the e-mail, or instead of it." />
        <Field label="Logo URL (https)" name="logo_url" type="url" maxLength={MAX_URL_LENGTH} defaultValue={settings.logo_url ?? ''} placeholder="https://" error={errors.logo_url} hint="A small square image; your customers' browsers load it from this address." />
        <div className="flex items-center gap-3 md:col-span-2">
          <SubmitButton disabled={save.isPending}>
            Save profile
          </SubmitButton>
          {saved && <span role="status" className="text-sm text-green-700 dark:text-green-400">Profile saved.</span>}
          <FieldError messages={save.error && !Object.keys(errors).length ? [save.error.message] : undefined} />
        </div>
      </form>
    </Card>
  );
}
