import type { Currency } from '@/lib/money/tokens';

/**
 * What the QR code carries. Tron has no standard payment URI; `tron:<address>?amount=`
 * is the form wallets that read one understand for TRX. No TRC-20 token form is
 * common to wallets, and one that misreads it could send TRX instead of USDT,
 * so for USDT the QR holds the bare address and the page shows the amount.
 */
export function walletUri(address: string, currency: Currency, amount: string | null): string {
  return currency === 'TRX' && amount ? `tron:${address}?amount=${amount}` : address;
}

/**
 * The "Open in wallet" link: the same `tron:` URI, which a phone hands to the wallet app registered
 * for it, filled with the address and the amount. Only for TRX with an amount: a bare `tron:<address>`
 * opened for a USDT invoice would start a TRX send in most wallets (the wrong token, held for the
 * merchant), so for USDT the page offers the copy buttons instead (docs/payment-page.md).
 */
export function walletLink(address: string, currency: Currency, amount: string | null): string | null {
  return currency === 'TRX' && amount ? walletUri(address, currency, amount) : null;
}
