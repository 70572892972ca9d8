'use client';

import { QrCode } from '@/components/payment/QrCode';
import { walletUri } from '@/components/payment/walletUri';
import type { Currency } from '@/lib/money/tokens';
import { CopyText } from './CopyText';
import { Facts } from './ui';

/**
 * How a payout is topped up (issue 38, item 5): the QR code a wallet scans, the address with its
 * copy button, the amount, and the top-up page (the payout's paymentURL: to pay from a wallet
 * elsewhere, or to hand on). Shown where the payout is created and on the payout's own page while
 * nothing has arrived yet.
 */
export function PayoutTopUp({ address, token, amount, paymentURL }: { address: string; token: Currency; amount: string; paymentURL: string }) {
  return (
    <div className="flex flex-wrap items-start gap-4">
      <div className="w-40 shrink-0">
        <QrCode value={walletUri(address, token, amount)} label={`QR code to top up ${amount} ${token} to ${address}`} />
      </div>
      <div className="grid min-w-0 flex-1 gap-2">
        <Facts
          label="Payout top-up"
          rows={[
            ['Top-up address', <span key="a" data-testid="payout-topup-address"><CopyText text={address} what="top-up address" /></span>],
            ['Top-up amount', <strong key="t"><span data-testid="payout-topup-amount">{amount}</span> {token}</strong>],
          ]}
        />
        <a className="text-indigo-600 underline dark:text-indigo-400" href={paymentURL} target="_blank" rel="noopener noreferrer">
          Open the top-up page
        </a>
      </div>
    </div>
  );
}
