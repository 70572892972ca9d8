'use client';

import { signIn } from 'next-auth/react';
import Link from 'next/link';
import { useRouter } from 'next/navigation';
import { browserSupportsWebAuthn } from '@simplewebauthn/browser';
import { useRef, useState, type FormEvent } from 'react';
import { passkeyAssertion } from './api';
import { SubmitButton } from './SubmitButton';
import { Button, Field, FieldError } from './ui';

const MESSAGES: Record<string, string> = {
  CredentialsSignin: 'Wrong e-mail or password.',
  TwoFactorRequired: 'Enter the code from your authenticator app or a recovery code, or use your passkey.',
  WrongTwoFactorCode: 'Wrong code or passkey: enter the code your authenticator app shows now or an unused recovery code, or use your passkey again.',
};

export function SignInForm() {
  const router = useRouter();
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  // Two-factor sign-in (issue 40): the code field appears once the server says the password was right and a code is needed.
  const [askCode, setAskCode] = useState(false);
  const formRef = useRef<HTMLFormElement>(null);

  async function submit(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    const form = new FormData(e.currentTarget);
    await send(form, askCode ? { code: form.get('code') } : {});
  }

  // A passkey instead of the code (lib/auth/passkeys.ts): the browser's passkey prompt, then the password with its answer.
  async function withPasskey() {
    const form = formRef.current;
    // The e-mail and password must be there; the code field, required for the code, is not needed.
    const given = (name: string) => (form?.elements.namedItem(name) as HTMLInputElement | null)?.reportValidity() ?? false;
    if (!form || !given('email') || !given('password')) return;
    setBusy(true);
    setError(null);
    let passkey: string;
    try {
      passkey = await passkeyAssertion();
    } catch {
      setBusy(false);
      setError('The passkey was not used; try again, or enter a code.');
      return;
    }
    await send(new FormData(form), { passkey });
  }

  async function send(form: FormData, second: { code?: FormDataEntryValue | null; passkey?: string }) {
    setBusy(true);
    setError(null);
    const res = await signIn('credentials', { email: form.get('email'), password: form.get('password'), ...second, redirect: false });
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
    <form ref={formRef} onSubmit={submit} className="space-y-4">
      <Field label="E-mail" name="email" type="email" autoComplete="email" required />
      <Field label="Password" name="password" type="password" autoComplete="current-password" required />
      {askCode && <Field label="Authenticator code" name="code" autoComplete="one-time-code" hint="6 digits from the app, or a recovery code" required autoFocus />}
      {askCode && browserSupportsWebAuthn() && (
        <Button variant="secondary" className="w-full" disabled={busy} onClick={() => void withPasskey()}>
          Use a passkey
        </Button>
      )}
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
