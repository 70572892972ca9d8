'use client';

import { useMutation } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { dashboardApi, RequestError } from './api';
import { Button, Card, Field, FieldError } from './ui';

/** Changes the password; the server then ends every session, this one too, so the page goes to sign-in. */
export function PasswordChange() {
  const [current, setCurrent] = useState('');
  const [next, setNext] = useState('');
  const change = useMutation({
    mutationFn: () => dashboardApi<void>('/settings/password', { method: 'POST', body: { current_password: current, new_password: next } }),
    // A full page load on purpose: the change ended every session, this one included.
    // eslint-disable-next-line @next/next/no-location-assign-relative-destination
    onSuccess: () => window.location.assign('/signin'),
  });
  const errors = change.error instanceof RequestError ? change.error.errors : {};
  function submit(e: FormEvent) {
    e.preventDefault();
    change.mutate();
  }
  return (
    <Card title="Password">
      <form onSubmit={submit} className="space-y-3">
        <Field label="Current password" name="current_password" type="password" autoComplete="current-password" value={current} onChange={(e) => setCurrent(e.target.value)} error={errors.current_password} required />
        <Field label="New password" name="new_password" type="password" autoComplete="new-password" value={next} onChange={(e) => setNext(e.target.value)} error={errors.new_password} hint="10 to 72 bytes. Every session, on every device, is signed out." required />
        <Button type="submit" disabled={change.isPending}>
          Change password
        </Button>
        <FieldError messages={change.error && !Object.keys(errors).length ? [change.error.message] : []} />
      </form>
    </Card>
  );
}
