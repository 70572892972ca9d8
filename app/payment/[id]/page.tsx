import type { Metadata } from 'next';
import { notFound } from 'next/navigation';
import { PaymentView } from '@/components/payment/PaymentView';
import { fill } from '@/lib/i18n';
import { devnetUrl } from '../_lib/devnet';
import { loadPublicInvoice } from '../_lib/loadPublicInvoice';
import { requestLocale } from '../_lib/locale';

export const dynamic = 'force-dynamic';

type Props = { params: Promise<{ id: string }> };

export async function generateMetadata({ params }: Props): Promise<Metadata> {
  const [{ id }, { t }] = await Promise.all([params, requestLocale()]);
  // Invoice ids are sequential: keep the pages out of search engines.
  return { title: fill(t.pageTitle, { id }), robots: { index: false, follow: false } };
}

export default async function PaymentPage({ params }: Props) {
  const { id } = await params;
  const [view, { locale, t }, devnet] = await Promise.all([loadPublicInvoice(id), requestLocale(), devnetUrl()]);
  if (!view) notFound();
  return (
    <main className="mx-auto w-full max-w-md px-4 py-6 sm:py-10">
      <PaymentView initial={view} t={t} locale={locale} devnet={devnet !== null} />
    </main>
  );
}
