import QRCode from 'qrcode';
import type { Merchant } from '@/lib/generated/prisma/client';
import { tokenAmountText } from '@/lib/money/tokens';
import { CopyText } from './CopyText';
import { Card } from './ui';

async function qrDataUri(text: string): Promise<string> {
  const svg = await QRCode.toString(text, { type: 'svg', margin: 1, errorCorrectionLevel: 'M' });
  return `data:image/svg+xml;utf8,${encodeURIComponent(svg)}`;
}

async function BalanceCard({ title, sun, address, purpose, owed }: { title: string; sun: bigint; address: string; purpose: string; owed: (amount: string) => string }) {
  const qr = await qrDataUri(address);
  return (
    <Card title={title}>
      <p className="text-3xl font-semibold" data-testid={`${title} amount`}>
        {tokenAmountText(sun)} <span className="text-base font-normal">TRX</span>
      </p>
      {sun < 0n ? (
        <p role="note" aria-label={`${title} below zero`} className="mt-2 rounded-md border border-amber-300 bg-amber-50 p-2 text-sm text-amber-950 dark:border-amber-700 dark:bg-amber-950 dark:text-amber-50">
          {owed(tokenAmountText(-sun))} Nothing is held back for it: your payments keep being forwarded. A top-up to the address below (TRX, or USDT at the
          current rate less the top-up fee) is credited to this balance and pays it back.
        </p>
      ) : (
        <p className="mt-2 text-sm text-slate-600 dark:text-slate-400">{purpose}</p>
      )}
      <div className="mt-4 flex items-center gap-4">
        {/* White backing so the code scans in dark mode too. A data: URI made on the server: next/image would only add a loader. */}
        {/* eslint-disable-next-line @next/next/no-img-element */}
        <img src={qr} alt={`QR code of the ${title.toLowerCase()} top-up address`} width={120} height={120} className="rounded bg-white p-1" />
        <div className="min-w-0">
          <p className="text-sm font-medium">Top-up address</p>
          <CopyText text={address} what={`${title.toLowerCase()} top-up address`} />
        </div>
      </div>
    </Card>
  );
}

/**
 * The two TRX balances of spec 2.4 and the addresses that top them up. A balance below zero
 * says what it is and what happens next, as the code does it (docs/worker.md, "Fees and who
 * pays what"): the service advanced the costs, nothing is held back or deducted from payments,
 * and a top-up is credited against it (lib/payments/topup.ts).
 */
export function Balances({ merchant }: { merchant: Merchant }) {
  return (
    <div className="grid gap-6 md:grid-cols-2">
      <BalanceCard
        title="Service-fee balance"
        sun={merchant.balanceSun}
        address={merchant.topupWalletAddress}
        purpose="Pays for AML checks of incoming payments. Send TRX to the address below to top it up."
        owed={(amount) => `Below zero: the service advanced ${amount} TRX of AML check costs for you.`}
      />
      <BalanceCard
        title="Activation balance"
        sun={merchant.activationBalanceSun}
        address={merchant.activationWalletAddress}
        purpose="Pays the network fees of your USDT forwards (activating addresses, energy). Send TRX to the address below."
        owed={(amount) => `Below zero: the service advanced ${amount} TRX of network fees (activating addresses, energy for USDT forwards) for you.`}
      />
    </div>
  );
}
