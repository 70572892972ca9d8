'use client';

import { browserSupportsWebAuthn, startRegistration } from '@simplewebauthn/browser';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import type { TwoFactorJson } from '@/lib/auth/twoFactor';
import { dashboardApi, RequestError } from './api';
import { CopyText } from './CopyText';
import { Button, Card, ConfirmButton, Field, FieldError, formatTime } from './ui';

type Enrolment = { secret: string; otpauth_uri: string };
type RegistrationOptions = { challenge_id: number; options: Parameters<typeof startRegistration>[0]['optionsJSON'] };

/**
 * Two-factor sign-in with an authenticator app (issue 40; docs/dashboard.md): set up in two steps
 * (the key or its otpauth link into the app, then a code from it back here), after which the
 * recovery codes are shown once; on, sign-in and money-moving changes ask for a code too.
 * Passkeys are the other second factor (lib/auth/passkeys.ts): added with the browser's own
 * prompt (the first second factor shows the recovery codes too), listed, removed with the
 * password and the second factor (the re-authentication dialog asks).
 */
export function TwoFactor() {
  const queryClient = useQueryClient();
  const state = useQuery({ queryKey: ['two-factor'], queryFn: () => dashboardApi<TwoFactorJson>('/settings/two-factor') });
  const [enrolment, setEnrolment] = useState<Enrolment | null>(null);
  const [recovery, setRecovery] = useState<string[] | null>(null);
  const [code, setCode] = useState('');
  const refresh = () => queryClient.invalidateQueries({ queryKey: ['two-factor'] });

  const start = useMutation({ mutationFn: () => dashboardApi<Enrolment>('/settings/two-factor/totp', { method: 'POST' }), onSuccess: setEnrolment });
  const confirm = useMutation({
    mutationFn: () => dashboardApi<{ recovery_codes: string[] }>('/settings/two-factor/totp/confirm', { method: 'POST', body: { code } }),
    onSuccess: (answer) => {
      setRecovery(answer.recovery_codes);
      setEnrolment(null);
      setCode('');
      void refresh();
    },
  });
  const disable = useMutation({
    mutationFn: () => dashboardApi<TwoFactorJson>('/settings/two-factor/totp/disable', { method: 'POST', body: { code } }),
    onSuccess: () => {
      setCode('');
      setRecovery(null);
      void refresh();
    },
  });
  const [passkeyName, setPasskeyName] = useState('');
  // The options (re-authentication guarded, the dialog asks when needed), the browser's prompt, then its answer stored.
  const addPasskey = useMutation({
    mutationFn: async () => {
      const { challenge_id, options } = await dashboardApi<RegistrationOptions>('/settings/two-factor/passkeys/options', { method: 'POST' });
      let response;
      try {
        response = await startRegistration({ optionsJSON: options });
      } catch {
        throw new Error('No passkey was made: the browser prompt was closed, or this device already holds one of yours.');
      }
      return dashboardApi<{ recovery_codes: string[] }>('/settings/two-factor/passkeys', { method: 'POST', body: { challenge_id, response, ...(passkeyName.trim() && { name: passkeyName.trim() }) } });
    },
    onSuccess: (answer) => {
      if (answer.recovery_codes.length > 0) setRecovery(answer.recovery_codes);
      setPasskeyName('');
      void refresh();
    },
  });
  const [renaming, setRenaming] = useState<{ id: number; name: string } | null>(null);
  const renamePasskey = useMutation({
    mutationFn: ({ id, name }: { id: number; name: string }) => dashboardApi(`/settings/two-factor/passkeys/${id}`, { method: 'PATCH', body: { name } }),
    onSuccess: () => {
      setRenaming(null);
      void refresh();
    },
  });
  const removePasskey = useMutation({
    mutationFn: (id: number) => dashboardApi<TwoFactorJson>(`/settings/two-factor/passkeys/${id}`, { method: 'DELETE' }),
    onSuccess: () => void refresh(),
  });
  const fieldError = (m: typeof confirm | typeof disable) => (m.error instanceof RequestError ? m.error.errors.code : undefined);
  const otherError = (m: { error: Error | null }) => (m.error && !(m.error instanceof RequestError && m.error.errors.code) ? [m.error.message] : []);

  function submit(e: FormEvent, action: typeof confirm | typeof disable) {
    e.preventDefault();
    action.mutate();
  }

  if (state.error) return <Card title="Two-factor sign-in"><p role="alert">{state.error.message}</p></Card>;
  if (!state.data) return <Card title="Two-factor sign-in"><p>Loading…</p></Card>;
  const totpOn = state.data.totp === 'on';
  const passkeys = state.data.passkeys;
  const asked = totpOn && passkeys.length > 0 ? 'a code from your authenticator app or a passkey' : totpOn ? 'a code from your authenticator app' : 'a passkey';
  return (
    <Card title="Two-factor sign-in">
      <p className="mb-3 text-sm text-slate-600 dark:text-slate-400" data-testid="two-factor-state">
        {state.data.on
          ? `On: signing in and money-moving changes ask for ${asked}. ${state.data.recovery_codes_left} recovery codes left.`
          : 'Off: a password alone signs in. With an authenticator app or a passkey, a stolen password moves no money.'}
      </p>
      {recovery && (
        <div role="status" className="mb-4 space-y-2 rounded-md border border-amber-300 bg-amber-50 p-3 text-sm dark:border-amber-700 dark:bg-amber-950">
          <p>Save these recovery codes now; they are not shown again. Each signs in once when your phone is not at hand.</p>
          <ul aria-label="Recovery codes" className="grid grid-cols-2 gap-1 font-mono">
            {recovery.map((c) => (
              <li key={c}>{c}</li>
            ))}
          </ul>
        </div>
      )}
      {!totpOn && !enrolment && (
        <Button onClick={() => start.mutate()} disabled={start.isPending}>
          Set up an authenticator app
        </Button>
      )}
      {!totpOn && enrolment && (
        <form onSubmit={(e) => submit(e, confirm)} className="space-y-3" aria-label="Confirm the authenticator app">
          <p className="text-sm">
            Add this key to your authenticator app, or <a className="text-indigo-600 underline dark:text-indigo-400" href={enrolment.otpauth_uri}>open it in the app</a> on this device:
          </p>
          <CopyText text={enrolment.secret} what="authenticator key" />
          <Field label="Code from the app" name="code" inputMode="numeric" autoComplete="one-time-code" value={code} onChange={(e) => setCode(e.target.value)} error={fieldError(confirm)} required />
          <Button type="submit" disabled={confirm.isPending}>
            Turn on
          </Button>
        </form>
      )}
      {totpOn && (
        <form onSubmit={(e) => submit(e, disable)} className="space-y-3" aria-label="Turn off two-factor sign-in">
          <Field label="Code or recovery code" name="code" autoComplete="one-time-code" value={code} onChange={(e) => setCode(e.target.value)} error={fieldError(disable)} required />
          <Button type="submit" variant="danger" disabled={disable.isPending}>
            Turn off
          </Button>
        </form>
      )}
      <h3 className="mb-2 mt-6 text-base font-semibold">Passkeys</h3>
      {passkeys.length > 0 ? (
        <ul aria-label="Passkeys" className="mb-3 divide-y divide-slate-200 text-sm dark:divide-slate-800">
          {passkeys.map((p) => (
            <li key={p.id} className="flex flex-wrap items-center justify-between gap-2 py-2">
              {renaming?.id === p.id ? (
                <form
                  onSubmit={(e) => {
                    e.preventDefault();
                    renamePasskey.mutate(renaming);
                  }}
                  className="flex flex-wrap items-end gap-2"
                  aria-label={`Rename the passkey ${p.name}`}
                >
                  <Field label="New name" name={`passkey-${p.id}-name`} maxLength={64} value={renaming.name} onChange={(e) => setRenaming({ id: p.id, name: e.target.value })} error={renamePasskey.error instanceof RequestError ? renamePasskey.error.errors.name : undefined} required autoFocus />
                  <Button type="submit" disabled={renamePasskey.isPending}>
                    Save
                  </Button>
                  <Button variant="secondary" onClick={() => setRenaming(null)}>
                    Cancel
                  </Button>
                </form>
              ) : (
                <span>
                  <span className="font-medium">{p.name}</span>
                  <span className="block text-xs text-slate-600 dark:text-slate-400">
                    Added {formatTime(p.created_at)}; last used {p.last_used_at ? formatTime(p.last_used_at) : 'never'}
                  </span>
                </span>
              )}
              <span className="flex gap-2">
                {renaming?.id !== p.id && (
                  <Button variant="secondary" aria-label={`Rename the passkey ${p.name}`} onClick={() => setRenaming({ id: p.id, name: p.name })}>
                    Rename
                  </Button>
                )}
                <ConfirmButton variant="danger" aria-label={`Remove the passkey ${p.name}`} disabled={removePasskey.isPending} confirm={`Remove the passkey "${p.name}"? It no longer signs in.`} onConfirm={() => removePasskey.mutate(p.id)}>
                  Remove
                </ConfirmButton>
              </span>
            </li>
          ))}
        </ul>
      ) : (
        <p className="mb-3 text-sm text-slate-600 dark:text-slate-400">No passkeys. A passkey (the screen lock of this device, a phone or a security key) can stand in for a code from the authenticator app.</p>
      )}
      {browserSupportsWebAuthn() ? (
        <form
          onSubmit={(e) => {
            e.preventDefault();
            addPasskey.mutate();
          }}
          className="flex flex-wrap items-end gap-2"
          aria-label="Add a passkey"
        >
          <Field label="Passkey name (optional)" name="passkey-name" placeholder="Passkey" maxLength={64} value={passkeyName} onChange={(e) => setPasskeyName(e.target.value)} />
          <Button type="submit" disabled={addPasskey.isPending}>
            Add a passkey
          </Button>
        </form>
      ) : (
        <p className="text-sm">This browser cannot use passkeys.</p>
      )}
      <FieldError messages={[...otherError(start), ...otherError(confirm), ...otherError(disable), ...otherError(addPasskey), ...otherError(removePasskey), ...(renamePasskey.error instanceof RequestError && renamePasskey.error.errors.name ? [] : otherError(renamePasskey))]} />
    </Card>
  );
}
