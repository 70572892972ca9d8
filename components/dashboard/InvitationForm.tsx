'use client';

import type { FormEvent } from 'react';
import { NewPasswordFields, passwordsDiffer, useCredentialsSubmit } from './credentials';
import { SubmitButton } from './SubmitButton';
import { Field, FieldError } from './ui';

type AcceptAction = (input: { token: string; password: string }) => Promise<{ email?: string; errors?: Record<string, string[]> }>;

/** Accepts an invitation: a new e-mail chooses its password (twice), an existing user gives its own; then signed in. */
export function InvitationForm({ token, email, userExists, action }: { token: string; email: string; userExists: boolean; action: AcceptAction }) {
  // Signing in opens the user's first store; a user of several switches in the header.
  const { errors, setErrors, busy, submit } = useCredentialsSubmit('/dashboard');

  async function onSubmit(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    const form = new FormData(e.currentTarget);
    const differ = userExists ? null : passwordsDiffer(form);
    if (differ) return setErrors(differ);
    const password = String(form.get('password'));
    await submit({ email, password }, () => action({ token, password }));
  }

  return (
    <form onSubmit={onSubmit} className="space-y-4">
      {userExists ? (
        <Field label="Your password" name="password" type="password" autoComplete="current-password" required error={errors.password} />
      ) : (
        <NewPasswordFields label="Choose a password" errors={errors} />
      )}
      <FieldError messages={errors.form} />
      <SubmitButton disabled={busy} className="w-full">
        Accept invitation
      </SubmitButton>
    </form>
  );
}
