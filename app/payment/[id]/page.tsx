import type { Metadata } from 'next';
import { notFound } from 'next/navigation';
import { cache } from 'react';
import { PaymentView } from '@/components/payment/PaymentView';
import { fill } from '@/lib/i18n';
import { chainConfig } from '@/lib/config';
import { db } from '@/lib/db/client';
import { devnetUrl } from '@/lib/devnet/faucet';
import { loadPublicInvoice } from '@/lib/invoices/loadPublic';
import { trustWalletAssets } from '@/lib/networks';
import { requestLocale } from '../_lib/locale';

export const dynamic = 'force-dynamic';

type Props = { params: Promise<{ id: string }>; searchParams: Promise<Record<string, string | string[] | undefined>> };

/** The paymentURL's key, `?k=` (docs/payment-page.md). */
async function linkKeyOf(searchParams: Props['searchParams']): Promise<string | null> {
  const k = (await searchParams).k;
  return typeof k === 'string' ? k : null;
}

// The title depends on the invoice's type: one load per request serves the metadata and the page.
const loadView = cache((id: string, linkKey: string | null) => loadPublicInvoice(db(), id, linkKey));

export async function generateMetadata({ params, searchParams }: Props): Promise<Metadata> {
  const { id } = await params;
  const [view, { t }] = await Promise.all([loadView(id, await linkKeyOf(searchParams)), requestLocale()]);
  const title = view?.type === 'MULTIPLE_TRANSFER' ? t.payout.pageTitle : t.pageTitle;
  // Invoice ids are sequential: keep the pages out of search engines.
  const store = view?.type === 'MULTIPLE_TRANSFER' ? null : view?.merchant?.store_name;
  // The tab says whom the customer is paying when the merchant set a store name (issue 26).
  return { title: store ? `${fill(title, { id })} · ${store}` : fill(title, { id }), robots: { index: false, follow: false } };
}

export default async function PaymentPage({ params, searchParams }: Props) {
  const { id } = await params;
  const linkKey = await linkKeyOf(searchParams);
  const [view, { locale, t }, devnet] = await Promise.all([loadView(id, linkKey), requestLocale(), devnetUrl()]);
  if (!view) notFound();
  const { network, usdtContract } = chainConfig();
  return (
    <main className="mx-auto w-full max-w-md px-4 py-3 sm:py-10 md:max-w-3xl">
      <PaymentView initial={view} linkKey={view.full ? linkKey : null} t={t} locale={locale} devnet={devnet !== null} trustAssets={trustWalletAssets(network, usdtContract)} />
    </main>
  );
}
