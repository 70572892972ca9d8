import type { PublicMerchant } from '@/lib/invoices/publicView';
import type { Messages } from '@/lib/i18n/en';
import { fill } from '@/lib/i18n/fill';

/**
 * The merchant's contact, where the page tells the customer to contact the merchant (issue 26).
 * Nothing when the merchant set no e-mail or support page: the page's own wording stays.
 */
export function MerchantContact({ merchant, t }: { merchant: PublicMerchant | null; t: Messages }) {
  if (!merchant || (!merchant.support_email && !merchant.support_url)) return null;
  const title = merchant.store_name ? fill(t.contactStore, { name: merchant.store_name }) : t.contactTitle;
  return (
    <div className="mt-3 border-t border-current/20 pt-2 text-sm" data-testid="merchant-contact">
      <p className="font-medium">{title}</p>
      <ul className="mt-1 space-y-1">
        {merchant.support_email && (
          <li>
            <span>{t.contactEmail}: </span>
            <a href={`mailto:${merchant.support_email}`} className="font-medium break-all underline">
              {merchant.support_email}
            </a>
          </li>
        )}
        {merchant.support_url && (
          <li>
            {/* The merchant's page: opened without telling it this page's address (the link key is in it). */}
            <a href={merchant.support_url} target="_blank" rel="noopener noreferrer" className="font-medium break-all underline">
              {t.contactUrl}
            </a>
          </li>
        )}
      </ul>
    </div>
  );
}
