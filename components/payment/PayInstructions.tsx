import type { PublicInvoice, PublicToken } from '@/lib/invoices/publicView';
import { fill } from '@/lib/i18n/fill';
import type { Messages } from '@/lib/i18n/en';
import { CopyButton } from './CopyButton';
import { QrCode } from './QrCode';
import { walletUri } from './walletUri';

/** Amount, QR code and address for the chosen token. */
export function PayInstructions({ view, token, t }: { view: PublicInvoice; token: PublicToken; t: Messages }) {
  const amount = token.missing;
  const label = amount === null ? fill(t.qrLabelStatic, { address: view.address }) : fill(t.qrLabel, { amount, currency: token.currency, address: view.address });
  return (
    <div className="space-y-4">
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
      <div className="flex justify-center">
        <QrCode value={walletUri(view.address, token.currency, amount)} label={label} />
      </div>
      <div>
        <p className="text-sm text-slate-700 dark:text-slate-300">{t.toAddress}</p>
        <div className="mt-1 flex items-center justify-between gap-3">
          <p className="font-mono text-sm break-all select-all" data-testid="pay-address">
            {view.address}
          </p>
          <CopyButton text={view.address} label={t.copyAddress} copiedLabel={t.copied} />
        </div>
      </div>
      <p className="text-xs text-slate-600 dark:text-slate-400">
        {amount === null ? fill(t.staticNote, { currencies: view.tokens.map((tok) => tok.currency).join(', ') }) : fill(t.networkNote, { currency: token.currency })}
      </p>
    </div>
  );
}
