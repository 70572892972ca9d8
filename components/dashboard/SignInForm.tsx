'use client';

import { signIn } from 'next-auth/react';
import Link from 'next/link';
import { useRouter } from 'next/navigation';
import { useState, type FormEvent } from 'react';
import { SubmitButton } from './SubmitButton';
import { Field, FieldError } from './ui';

const MESSAGES: Record<string, string> = {
  CredentialsSignin: 'Wrong e-mail or password.',
  TwoFactorRequired: 'Enter the code from your authenticator app, or a recovery code.',
  WrongTwoFactorCode: 'Wrong code: enter the one your authenticator app shows now, or an unused recovery code.',
};

export function SignInForm() {
  const router = useRouter();
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  // Two-factor sign-in (issue 40): the code field appears once the server says the password was right and a code is needed.
  const [askCode, setAskCode] = useState(false);

  async function submit(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    const form = new FormData(e.currentTarget);
    setBusy(true);
    setError(null);
    const res = await signIn('credentials', { email: form.get('email'), password: form.get('password'), ...(askCode && { code: form.get('code') }), redirect: false });
    setBusy(false);
    if (res?.ok) {
      router.replace('/dashboard');
      router.refresh();
    } else {
      if (res?.error === 'TwoFactorRequired' || res?.error === 'WrongTwoFactorCode') setAskCode(true);
      setError(MESSAGES[res?.error ?? ''] ?? res?.error ?? 'Sign-in failed.');
    }
  }

  return (
    <form onSubmit={submit} className="space-y-4">
      <Field label="E-mail" name="email" type="email" autoComplete="email" required />
      <Field label="Password" name="password" type="password" autoComplete="current-password" required />
      {askCode && <Field label="Authenticator code" name="code" autoComplete="one-time-code" hint="6 digits from the app, or a recovery code" required autoFocus />}
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
