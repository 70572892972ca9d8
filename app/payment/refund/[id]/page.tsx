import type { Metadata } from 'next';
import { notFound } from 'next/navigation';
import { cache } from 'react';
import { RefundClaim } from '@/components/payment/RefundClaim';
import { db } from '@/lib/db/client';
import { AppError } from '@/lib/errors';
import { fill } from '@/lib/i18n';
import { loadRefundClaim, type RefundClaimView } from '@/lib/refunds/claim';
import { requestLocale } from '../../_lib/locale';

export const dynamic = 'force-dynamic';

type Props = { params: Promise<{ id: string }>; searchParams: Promise<Record<string, string | string[] | undefined>> };

/** The claim link's key, `?k=` (docs/refunds.md). */
async function claimKeyOf(searchParams: Props['searchParams']): Promise<string | null> {
  const k = (await searchParams).k;
  return typeof k === 'string' ? k : null;
}

/** The claim's view, or null for an unknown refund or a wrong key (both the same 404). */
const loadView = cache(async (id: string, key: string | null): Promise<RefundClaimView | null> => {
  try {
    return await loadRefundClaim(db(), id, key);
  } catch (err) {
    if (err instanceof AppError && err.code === 'NOT_FOUND') return null;
    throw err;
  }
});

export async function generateMetadata({ params, searchParams }: Props): Promise<Metadata> {
  const { id } = await params;
  const [view, { t }] = await Promise.all([loadView(id, await claimKeyOf(searchParams)), requestLocale()]);
  const store = view?.merchant?.store_name;
  const title = fill(t.refund.pageTitle, { id });
  // Refund ids are sequential: keep the pages out of search engines.
  return { title: store ? `${title} · ${store}` : title, robots: { index: false, follow: false } };
}

/** The customer's claim page of a refund: where they enter their address, then follow it (issue 36). */
export default async function RefundClaimPage({ params, searchParams }: Props) {
  const { id } = await params;
  const key = await claimKeyOf(searchParams);
  const [view, { locale, t }] = await Promise.all([loadView(id, key), requestLocale()]);
  if (!view || key === null) notFound();
  return (
    <main className="mx-auto w-full max-w-md px-4 py-6 sm:py-10">
      <RefundClaim initial={view} claimKey={key} t={t} locale={locale} />
    </main>
  );
}
