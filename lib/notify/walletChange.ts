import { sendMail, type MailSettings } from './mail';

export interface WalletChange {
  email: string;
  previous: string | null;
  current: string | null;
  at: Date;
}

export type WalletChangeNotifier = (change: WalletChange, settings?: MailSettings) => Promise<unknown>;

/** Tells the merchant, by e-mail when SMTP is configured, that its payout target wallet changed. */
export const notifyTargetWalletChanged: WalletChangeNotifier = (change, settings) =>
  sendMail(
    {
      to: change.email,
      subject: 'Your payout wallet was changed',
      text: [
        `The target wallet that receives your payments was changed at ${change.at.toISOString()}.`,
        `Before: ${change.previous ?? '(none)'}`,
        `Now:    ${change.current ?? '(none)'}`,
        '',
        'If this was not you, sign in, set your wallet back and change your password: that ends every session.',
      ].join('\n'),
    },
    settings,
  );
