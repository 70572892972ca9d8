import QRCode from 'qrcode';
import type { Merchant } from '@/lib/generated/prisma/client';
import { tokenAmountText } from '@/lib/money/tokens';
import { CopyText } from './CopyText';
import { Card } from './ui';

async function qrDataUri(text: string): Promise<string> {
  const svg = await QRCode.toString(text, { type: 'svg', margin: 1, errorCorrectionLevel: 'M' });
  return `data:image/svg+xml;utf8,${encodeURIComponent(svg)}`;
}

async function BalanceCard({ title, sun, address, purpose }: { title: string; sun: bigint; address: string; purpose: string }) {
  const qr = await qrDataUri(address);
  return (
    <Card title={title}>
      <p className="text-3xl font-semibold" data-testid={`${title} amount`}>
        {tokenAmountText(sun)} <span className="text-base font-normal">TRX</span>
      </p>
      <p className="mt-2 text-sm text-slate-600 dark:text-slate-400">{purpose}</p>
      <div className="mt-4 flex items-center gap-4">
        {/* White backing so the code scans in dark mode too. A data: URI made on the server: next/image would only add a loader. */}
        {/* eslint-disable-next-line @next/next/no-img-element */}
        <img src={qr} alt={`QR code of the ${title.toLowerCase()} top-up address`} width={120} height={120} className="rounded bg-white p-1" />
        <div>
          <p className="text-sm font-medium">Top-up address</p>
          <CopyText text={address} what={`${title.toLowerCase()} top-up address`} />
        </div>
      </div>
    </Card>
  );
}

/** The two TRX balances of spec 2.4 and the addresses that top them up. */
export function Balances({ merchant }: { merchant: Merchant }) {
  return (
    <div className="grid gap-6 md:grid-cols-2">
      <BalanceCard title="Service-fee balance" sun={merchant.balanceSun} address={merchant.topupWalletAddress} purpose="Pays the service fees. Send TRX to the address below to top it up." />
      <BalanceCard title="Activation balance" sun={merchant.activationBalanceSun} address={merchant.activationWalletAddress} purpose="Pays for activating new addresses on Tron. Send TRX to the address below." />
    </div>
  );
}
