'use client';

import { signIn } from 'next-auth/react';
import Link from 'next/link';
import { useRouter } from 'next/navigation';
import { useState, type FormEvent } from 'react';
import { SubmitButton } from './SubmitButton';
import { Field, FieldError } from './ui';

type SignUpAction = (input: { email: string; password: string }) => Promise<{ errors?: Record<string, string[]> }>;

export function SignUpForm({ action }: { action: SignUpAction }) {
  const router = useRouter();
  const [errors, setErrors] = useState<Record<string, string[]>>({});
  const [busy, setBusy] = useState(false);

  async function submit(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    const form = new FormData(e.currentTarget);
    const email = String(form.get('email'));
    const password = String(form.get('password'));
    if (password !== form.get('confirm')) return setErrors({ confirm: ['The passwords differ.'] });
    setBusy(true);
    const result = await action({ email, password });
    if (result.errors) {
      setBusy(false);
      return setErrors(result.errors);
    }
    await signIn('credentials', { email, password, redirect: false });
    router.replace('/dashboard/settings');
    router.refresh();
  }

  return (
    <form onSubmit={submit} className="space-y-4">
      <Field label="E-mail" name="email" type="email" autoComplete="email" required error={errors.email} />
      <Field label="Password" name="password" type="password" autoComplete="new-password" minLength={10} required error={errors.password} hint="At least 10 characters." />
      <Field label="Repeat password" name="confirm" type="password" autoComplete="new-password" required error={errors.confirm} />
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
