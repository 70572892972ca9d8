'use client';

import Link from 'next/link';
import type { FormEvent } from 'react';
import { NewPasswordFields, passwordsDiffer, useCredentialsSubmit } from './credentials';
import { SubmitButton } from './SubmitButton';
import { Field, FieldError } from './ui';

type SignUpAction = (input: { email: string; password: string }) => Promise<{ errors?: Record<string, string[]> }>;

export function SignUpForm({ action }: { action: SignUpAction }) {
  const { errors, setErrors, busy, submit } = useCredentialsSubmit('/dashboard/settings');

  async function onSubmit(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    const form = new FormData(e.currentTarget);
    const differ = passwordsDiffer(form);
    if (differ) return setErrors(differ);
    const credentials = { email: String(form.get('email')), password: String(form.get('password')) };
    await submit(credentials, () => action(credentials));
  }

  return (
    <form onSubmit={onSubmit} className="space-y-4">
      <Field label="E-mail" name="email" type="email" autoComplete="email" required error={errors.email} />
      <NewPasswordFields label="Password" errors={errors} />
      <FieldError messages={errors.form} />
      <SubmitButton disabled={busy} className="w-full">
        Create account
      </SubmitButton>
      <p className="text-sm">
        Already registered? <Link className="text-indigo-600 underline dark:text-indigo-400" href="/signin">Sign in</Link>
      </p>
    </form>
  );
}
