import { InvitationForm } from '@/components/dashboard/InvitationForm';
import { db } from '@/lib/db/client';
import { AppError } from '@/lib/errors';
import { invitationInfo } from '@/lib/merchants/invitations';
import { accept } from './actions';

export const dynamic = 'force-dynamic';
export const metadata = { title: 'Invitation · Tron Invoicing' };

/** An invitation's link (issue 40): the store, the role, and the form that accepts it. */
export default async function InvitationPage({ params }: { params: Promise<{ token: string }> }) {
  const { token } = await params;
  const info = await invitationInfo(db(), decodeURIComponent(token)).catch((err: unknown) => {
    if (err instanceof AppError) return err.detail;
    throw err;
  });
  return (
    <main className="mx-auto mt-16 max-w-sm px-4">
      <h1 className="mb-6 text-2xl font-semibold">Join a store</h1>
      {typeof info === 'string' ? (
        <p role="alert">{info}</p>
      ) : (
        <>
          <p className="mb-4 text-sm">
            You are invited to <strong>{info.store}</strong> as <strong>{info.role}</strong>, with the e-mail <strong>{info.email}</strong>.
          </p>
          <InvitationForm token={decodeURIComponent(token)} email={info.email} userExists={info.userExists} action={accept} />
        </>
      )}
    </main>
  );
}
