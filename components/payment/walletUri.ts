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
