import { SignUpForm } from '@/components/dashboard/SignUpForm';
import { signUp } from './actions';

export const metadata = { title: 'Sign up · Tron Invoicing' };

export default function SignUpPage() {
  return (
    <>
      <h1 className="mb-6 text-2xl font-semibold">Create a merchant account</h1>
      <SignUpForm action={signUp} />
    </>
  );
}
