'use client';

import { signIn } from 'next-auth/react';
import Link from 'next/link';
import { useRouter } from 'next/navigation';
import { useState, type FormEvent } from 'react';
import { SubmitButton } from './SubmitButton';
import { Field, FieldError } from './ui';

const MESSAGES: Record<string, string> = { CredentialsSignin: 'Wrong e-mail or password.' };

export function SignInForm() {
  const router = useRouter();
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  async function submit(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    const form = new FormData(e.currentTarget);
    setBusy(true);
    setError(null);
    const res = await signIn('credentials', { email: form.get('email'), password: form.get('password'), redirect: false });
    setBusy(false);
    if (res?.ok) {
      router.replace('/dashboard');
      router.refresh();
    } else {
      setError(MESSAGES[res?.error ?? ''] ?? res?.error ?? 'Sign-in failed.');
    }
  }

  return (
    <form onSubmit={submit} className="space-y-4">
      <Field label="E-mail" name="email" type="email" autoComplete="email" required />
      <Field label="Password" name="password" type="password" autoComplete="current-password" required />
      <FieldError messages={error ? [error] : undefined} />
      <SubmitButton disabled={busy} className="w-full">
        Sign in
      </SubmitButton>
      <p className="text-sm">
        No account? <Link className="text-indigo-600 underline dark:text-indigo-400" href="/signup">Sign up</Link>
      </p>
    </form>
  );
}
