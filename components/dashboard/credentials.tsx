'use client';

import { signIn } from 'next-auth/react';
import { useRouter } from 'next/navigation';
import { useState } from 'react';
import { Field } from './ui';

type FieldErrors = Record<string, string[]>;

/**
 * The submit of a form that makes a login or a membership and then signs in with what was typed
 * (sign-up, an invitation accepted): the server action first; then its field errors shown, or the
 * session opened and dashboard page `to` loaded.
 */
export function useCredentialsSubmit(to: string) {
  const router = useRouter();
  const [errors, setErrors] = useState<FieldErrors>({});
  const [busy, setBusy] = useState(false);
  async function submit(credentials: { email: string; password: string }, act: () => Promise<{ errors?: FieldErrors }>): Promise<void> {
    setBusy(true);
    const result = await act();
    if (result.errors) {
      setBusy(false);
      setErrors(result.errors);
      return;
    }
    await signIn('credentials', { ...credentials, redirect: false });
    router.replace(to);
    router.refresh();
  }
  return { errors, setErrors, busy, submit };
}

/** The form's two new-password fields differ: the error shown under the second. */
export function passwordsDiffer(form: FormData): FieldErrors | null {
  return form.get('password') !== form.get('confirm') ? { confirm: ['The passwords differ.'] } : null;
}

/** A new password and its repetition, with the length the server asks (lib/auth/schemas.ts). */
export function NewPasswordFields({ label, errors }: { label: string; errors: FieldErrors }) {
  return (
    <>
      <Field label={label} name="password" type="password" autoComplete="new-password" minLength={10} required error={errors.password} hint="At least 10 characters." />
      <Field label="Repeat password" name="confirm" type="password" autoComplete="new-password" required error={errors.confirm} />
    </>
  );
}
