import type { PublicInvoice, PublicToken } from '@/lib/invoices/publicView';
import { fill } from '@/lib/i18n/fill';
import type { Messages } from '@/lib/i18n/en';
import type { TrustWalletAssets } from '@/lib/networks';
import { CopyButton } from './CopyButton';
import { QrCode } from './QrCode';
import { trustWalletLink, walletLink, walletUri } from './walletUri';

/**
 * Amount, address and QR code for the chosen token (the time left is in the page's top row,
 * `PaymentView`). Ordered for the phone the customer most often pays from (issue 38): what to send,
 * where, and the buttons that open a wallet come first; the QR code, for paying from a second
 * device, after them. From `md` up (a desktop, where the customer pays by scanning with a phone)
 * the QR code comes first, in a column beside the amount and address so that all of them are on
 * the first screen, and there is no wallet button (no wallet app there takes these links).
 *
 * The wallet buttons: "Open in wallet" (the `tron:` URI, TRX only) and, on mainnet, "Open in Trust
 * Wallet" (its documented send link, TRX and USDT; `trustAssets`). Neither is the only way to pay:
 * the copy buttons and the QR code stay, and the customer is asked to check the amount and token.
 */
export function PayInstructions({ view, token, t, trustAssets = null }: { view: PublicInvoice; token: PublicToken; t: Messages; trustAssets?: TrustWalletAssets | null }) {
  const amount = token.missing;
  const label = amount === null ? fill(t.qrLabelStatic, { address: view.address }) : fill(t.qrLabel, { amount, currency: token.currency, address: view.address });
  const link = walletLink(view.address, token.currency, amount);
  const trust = trustWalletLink(view.address, token.currency, amount, trustAssets);
  return (
    <div className="flex flex-col gap-4 md:grid md:grid-cols-[14rem_minmax(0,1fr)] md:items-start md:gap-6">
      <div className="space-y-3 sm:space-y-4">
        {amount !== null && (
          <div>
            <p className="text-sm text-slate-700 dark:text-slate-300">{view.phase === 'partial' ? t.sendRest : t.sendExactly}</p>
            <div className="mt-1 flex items-center justify-between gap-3">
              <p className="font-mono text-2xl font-bold break-all" data-testid="pay-amount">
                {amount} <span className="text-lg">{token.currency}</span>
              </p>
              <CopyButton text={amount} label={t.copyAmount} copiedLabel={t.copied} />
            </div>
            {token.service_fee !== null && token.amount_before_fee !== null && token.amount_due !== null && (
              <p className="mt-1 text-sm text-slate-700 dark:text-slate-300" data-testid="fee-line">
                {fill(t.feeLine, { amount: token.amount_before_fee, fee: token.service_fee, total: token.amount_due, currency: token.currency })}
              </p>
            )}
          </div>
        )}
        <div>
          <p className="text-sm text-slate-700 dark:text-slate-300">{t.toAddress}</p>
          <div className="mt-1 flex items-center justify-between gap-3">
            <p className="font-mono text-sm break-all select-all" data-testid="pay-address">
              {view.address}
            </p>
            <CopyButton text={view.address} label={t.copyAddress} copiedLabel={t.copied} />
          </div>
        </div>
        {(link || trust) && (
          <div className="space-y-2 md:hidden">
            {link && (
              <a
                href={link}
                data-testid="open-wallet"
                className="flex w-full items-center justify-center rounded-lg bg-sky-700 px-4 py-3 text-base font-semibold text-white hover:bg-sky-800 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-sky-700"
              >
                {t.openInWallet}
              </a>
            )}
            {trust && (
              <a
                href={trust}
                rel="noopener noreferrer"
                data-testid="open-trust-wallet"
                className="flex w-full items-center justify-center rounded-lg border border-sky-700 px-4 py-2.5 text-base font-semibold text-sky-800 hover:bg-sky-50 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-sky-700 dark:border-sky-400 dark:text-sky-300 dark:hover:bg-slate-800"
              >
                {t.openInTrustWallet}
              </a>
            )}
            <p className="text-xs text-slate-600 dark:text-slate-400">{fill(t.walletCheck, { currency: token.currency })}</p>
          </div>
        )}
        <p className="text-xs text-slate-600 dark:text-slate-400">
          {amount === null ? fill(t.staticNote, { currencies: view.tokens.map((tok) => tok.currency).join(', ') }) : fill(t.networkNote, { currency: token.currency })}
        </p>
      </div>
      <figure className="flex flex-col items-center gap-2 md:order-first">
        <QrCode value={walletUri(view.address, token.currency, amount)} label={label} />
        <figcaption className="text-center text-xs text-slate-600 dark:text-slate-400">
          <span className="md:hidden">{t.scanFromAnotherDevice}</span>
          <span className="hidden md:inline">{t.scanWithPhone}</span>
        </figcaption>
      </figure>
    </div>
  );
}
