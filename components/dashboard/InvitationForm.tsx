'use client';

import { signIn } from 'next-auth/react';
import { useRouter } from 'next/navigation';
import { useState, type FormEvent } from 'react';
import { SubmitButton } from './SubmitButton';
import { Field, FieldError } from './ui';

type AcceptAction = (input: { token: string; password: string }) => Promise<{ email?: string; errors?: Record<string, string[]> }>;

/** Accepts an invitation: a new e-mail chooses its password (twice), an existing user gives its own; then signed in. */
export function InvitationForm({ token, email, userExists, action }: { token: string; email: string; userExists: boolean; action: AcceptAction }) {
  const router = useRouter();
  const [errors, setErrors] = useState<Record<string, string[]>>({});
  const [busy, setBusy] = useState(false);

  async function submit(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    const form = new FormData(e.currentTarget);
    const password = String(form.get('password'));
    if (!userExists && password !== form.get('confirm')) return setErrors({ confirm: ['The passwords differ.'] });
    setBusy(true);
    const result = await action({ token, password });
    if (result.errors) {
      setBusy(false);
      return setErrors(result.errors);
    }
    // Signing in opens the user's first store; a user of several switches in the header.
    await signIn('credentials', { email, password, redirect: false });
    router.replace('/dashboard');
    router.refresh();
  }

  return (
    <form onSubmit={submit} className="space-y-4">
      {userExists ? (
        <Field label="Your password" name="password" type="password" autoComplete="current-password" required error={errors.password} />
      ) : (
        <>
          <Field label="Choose a password" name="password" type="password" autoComplete="new-password" minLength={10} required error={errors.password} hint="At least 10 characters." />
          <Field label="Repeat password" name="confirm" type="password" autoComplete="new-password" required error={errors.confirm} />
        </>
      )}
      <FieldError messages={errors.form} />
      <SubmitButton disabled={busy} className="w-full">
        Accept invitation
      </SubmitButton>
    </form>
  );
}
