import { SignInForm } from '@/components/dashboard/SignInForm';

export const metadata = { title: 'Sign in · Tron Invoicing' };

export default function SignInPage() {
  return (
    <>
      <h1 className="mb-6 text-2xl font-semibold">Sign in to the dashboard</h1>
      <SignInForm />
    </>
  );
}
