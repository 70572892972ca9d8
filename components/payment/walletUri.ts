import type { Currency } from '@/lib/money/tokens';
import type { TrustWalletAssets } from '@/lib/networks';

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

/**
 * The "Open in Trust Wallet" link (issue 38): Trust Wallet's documented send link
 * (developer.trustwallet.com, "Deep Linking", Send Payment), which opens its send screen with the
 * asset, the address and the amount filled in, or its download page where the app is not installed.
 * The asset is a Universal Asset ID that names the token (USDT by its contract), so unlike `tron:`
 * it serves USDT too. Null without an amount (a static address takes any) or where Trust Wallet has
 * no such network (`assets` null: every network but mainnet).
 */
export function trustWalletLink(address: string, currency: Currency, amount: string | null, assets: TrustWalletAssets | null): string | null {
  if (!amount || !assets) return null;
  return `https://link.trustwallet.com/send?${new URLSearchParams({ asset: assets[currency], address, amount })}`;
}
