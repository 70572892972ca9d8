import type { PublicMerchant } from '@/lib/invoices/publicView';
import type { Messages } from '@/lib/i18n/en';
import { fill } from '@/lib/i18n/fill';

/** Who the customer is paying: the merchant's store name and logo, when set (issue 26). */
export function StoreHeader({ merchant, t }: { merchant: PublicMerchant | null; t: Messages }) {
  if (!merchant?.store_name && !merchant?.logo_url) return null;
  const name = merchant.store_name;
  return (
    <div className="mb-2 flex items-center gap-3" data-testid="store">
      {merchant.logo_url && (
        // The customer's browser loads the logo from the merchant's https URL (the server never
        // fetches it), without a referrer: this page's address carries the link key. A plain <img>:
        // Next's image optimiser would fetch it on the server.
        // eslint-disable-next-line @next/next/no-img-element
        <img src={merchant.logo_url} alt={name ? fill(t.storeLogo, { name }) : ''} referrerPolicy="no-referrer" className="h-10 w-10 shrink-0 rounded object-contain" />
      )}
      {name && <p className="text-lg font-semibold break-words">{name}</p>}
    </div>
  );
}
