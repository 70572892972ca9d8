import { randomBytes } from 'node:crypto';
import { masterKeyRing } from '@/lib/crypto/masterKey';
import { open, seal } from '@/lib/crypto/secretBox';
import { chain } from '@/lib/chain';
import type { Chain } from '@/lib/chain/types';
import type { Merchant, Prisma, PrismaClient } from '@/lib/generated/prisma/client';
import { queryRows, sql } from '@/lib/db/sql';
import { recordAudit, type AuditBy } from '@/lib/audit/record';
import { canonicalIpRule } from '@/lib/ipAllowList';
import { fieldErrors } from '@/lib/errors';
import { notifyTargetWalletChanged, type WalletChangeNotifier } from '@/lib/notify/walletChange';
import { refuseContractTargets } from '@/lib/rules/receivers';
import type { SettingsInput } from './schemas';

/** Most rules a merchant may list; the whitelist is checked on every API call. */
const MAX_IP_RULES = 100;

/** What the settings page shows; the webhook secret is fetched separately, on request. */
export function settingsJson(m: Merchant) {
  return {
    email: m.email,
    target_wallet_address: m.targetWalletAddress,
    webhook_url: m.webhookUrl,
    aml_check: m.amlCheck,
    webhook_retries: m.webhookRetries,
    webhook_held_events: m.webhookHeldEvents,
    webhook_refund_events: m.webhookRefundEvents,
    aml_risk_limit: m.amlRiskLimit.toFixed(),
    underpayment_tolerance_percent: m.underpaymentTolerancePercent.toFixed(),
    ip_whitelist: m.ipWhitelist,
    require_two_factor: m.requireTwoFactor,
    target_wallet_changed_at: m.targetWalletChangedAt?.toISOString() ?? null,
    store_name: m.storeName,
    support_email: m.supportEmail,
    support_url: m.supportUrl,
    logo_url: m.logoUrl,
  };
}

export type SettingsJson = ReturnType<typeof settingsJson>;

/**
 * Applies a settings change. A changed target wallet is recorded (the dashboard
 * shows a notice) and reported by e-mail when SMTP is configured: a session
 * thief's first move is to redirect the payouts (issue 14, finding 2). The
 * first wallet of an account is no change and is not reported.
 */
export async function updateSettings(prisma: PrismaClient, merchant: Merchant, input: SettingsInput, by: AuditBy, notify: WalletChangeNotifier = notifyTargetWalletChanged, node: () => Chain = chain): Promise<Merchant> {
  // Payments are forwarded there: a smart contract cannot be one (issue 34; 503 when the node cannot tell).
  if (input.target_wallet_address && input.target_wallet_address !== merchant.targetWalletAddress) await refuseContractTargets(node(), { target_wallet_address: input.target_wallet_address });
  // A first wallet (none before) is a setting, not a change: nothing to warn about (issue 26).
  // Clearing a wallet is a change; a wallet set after that keeps the notice of the clearing.
  const walletChanged = input.target_wallet_address !== undefined && input.target_wallet_address !== merchant.targetWalletAddress && merchant.targetWalletAddress !== null;
  // The audit rows' "before" is the row as this transaction locked it, not as the request read it:
  // a change committed in between is another change, with its own rows.
  const updated = await prisma.$transaction(async (tx) => {
    await queryRows(tx, sql`SELECT id FROM merchants WHERE id = ${merchant.id} FOR UPDATE`);
    const current = await tx.merchant.findUniqueOrThrow({ where: { id: merchant.id } });
    const row = await tx.merchant.update({
      where: { id: merchant.id },
      data: {
        targetWalletAddress: input.target_wallet_address,
        webhookUrl: input.webhook_url,
        amlCheck: input.aml_check,
        webhookRetries: input.webhook_retries,
        webhookHeldEvents: input.webhook_held_events,
        webhookRefundEvents: input.webhook_refund_events,
        amlRiskLimit: input.aml_risk_limit,
        underpaymentTolerancePercent: input.underpayment_tolerance_percent,
        storeName: input.store_name,
        supportEmail: input.support_email,
        supportUrl: input.support_url,
        logoUrl: input.logo_url,
        requireTwoFactor: input.require_two_factor,
        ...(walletChanged && { targetWalletChangedAt: new Date() }),
      },
    });
    await auditSettings(tx, by, current, row);
    return row;
  });
  if (walletChanged) await notify({ email: updated.email, previous: merchant.targetWalletAddress, current: updated.targetWalletAddress, at: updated.targetWalletChangedAt ?? new Date() });
  return updated;
}

/** The settings whose change is an action of its own in the audit log; every other one is `settings_changed`. */
const OWN_ACTIONS = { target_wallet_address: 'payout_wallet_changed', webhook_url: 'webhook_url_changed' } as const;

/**
 * The audit rows of a settings change (lib/audit/record.ts), in its transaction: the wallet and the
 * webhook URL each their own action, the rest one `settings_changed` with only the settings that
 * changed, before and after, as the settings page shows them. A save that changes nothing writes nothing.
 */
async function auditSettings(tx: Prisma.TransactionClient, by: AuditBy, before: Merchant, after: Merchant): Promise<void> {
  const was = settingsJson(before);
  const is = settingsJson(after);
  const changed: { before: Record<string, Prisma.InputJsonValue | null>; after: Record<string, Prisma.InputJsonValue | null> } = { before: {}, after: {} };
  for (const field of Object.keys(is) as (keyof SettingsJson)[]) {
    if (field === 'target_wallet_changed_at' || JSON.stringify(was[field]) === JSON.stringify(is[field])) continue;
    if (field in OWN_ACTIONS) {
      const action = OWN_ACTIONS[field as keyof typeof OWN_ACTIONS];
      await recordAudit(tx, by, { merchantId: after.id, action, before: { [field]: was[field] }, after: { [field]: is[field] } });
    } else {
      changed.before[field] = was[field];
      changed.after[field] = is[field];
    }
  }
  if (Object.keys(changed.after).length > 0) await recordAudit(tx, by, { merchantId: after.id, action: 'settings_changed', ...changed });
}

/**
 * Settings a stolen session cookie must not change on its own (issue 14, finding 2; issue 34,
 * item 5): where payments are forwarded, what customers see on the payment page (a "support"
 * page can tell them where to pay) and where webhooks carry the merchant's data. Changing one
 * needs a recent sign-in or the password (requireRecentAuth, lib/auth/reauth.ts). So does the
 * underpayment tolerance (issue 36): a thief who is also a buyer would set 50 % and pay half.
 * And whether the store requires two-factor sign-in of its members (issue 40).
 */
const GUARDED_SETTINGS = {
  target_wallet_address: 'targetWalletAddress',
  webhook_url: 'webhookUrl',
  store_name: 'storeName',
  support_email: 'supportEmail',
  support_url: 'supportUrl',
  logo_url: 'logoUrl',
  // Turned off, a phished password of a member is again enough (issue 40).
  require_two_factor: 'requireTwoFactor',
} as const satisfies Partial<Record<keyof SettingsInput, keyof Merchant>>;

/**
 * Whether the input changes a guarded setting. A value sent again as it is stored is no change
 * (the settings form sends the webhook URL with every save); clearing one is.
 */
export function changesGuardedSetting(merchant: Merchant, input: SettingsInput): boolean {
  const tolerance = input.underpayment_tolerance_percent;
  if (tolerance !== undefined && !merchant.underpaymentTolerancePercent.equals(tolerance)) return true;
  return (Object.keys(GUARDED_SETTINGS) as (keyof typeof GUARDED_SETTINGS)[]).some((field) => input[field] !== undefined && input[field] !== merchant[GUARDED_SETTINGS[field]]);
}

export function webhookSecret(m: Merchant): string {
  return open(masterKeyRing(), m.webhookSecretEnc);
}

/** A new signing secret; webhooks queued from now on are signed with it. */
export async function rotateWebhookSecret(prisma: PrismaClient, merchantId: number, by: AuditBy): Promise<string> {
  const secret = randomBytes(32).toString('base64url');
  // The log says that it changed, never what to: the secret signs webhooks the merchant's shop trusts.
  await prisma.$transaction(async (tx) => {
    await tx.merchant.update({ where: { id: merchantId }, data: { webhookSecretEnc: seal(masterKeyRing(), secret) } });
    await recordAudit(tx, by, { merchantId, action: 'webhook_secret_changed' });
  });
  return secret;
}

// The array is rewritten under a row lock so two concurrent edits cannot drop each other's rule.
// The audit row is written under the same lock, with the list as it was and as it is (nothing when the edit changed nothing).
async function editWhitelist(prisma: PrismaClient, merchantId: number, by: AuditBy, edit: (rules: string[]) => string[]): Promise<Merchant> {
  return prisma.$transaction(async (tx) => {
    await queryRows(tx, sql`SELECT id FROM merchants WHERE id = ${merchantId} FOR UPDATE`);
    const { ipWhitelist } = await tx.merchant.findUniqueOrThrow({ where: { id: merchantId }, select: { ipWhitelist: true } });
    const rules = edit(ipWhitelist);
    if (JSON.stringify(rules) !== JSON.stringify(ipWhitelist)) await recordAudit(tx, by, { merchantId, action: 'ip_whitelist_changed', before: ipWhitelist, after: rules });
    return tx.merchant.update({ where: { id: merchantId }, data: { ipWhitelist: rules } });
  });
}

export function addIpRule(prisma: PrismaClient, merchantId: number, rule: string, by: AuditBy): Promise<Merchant> {
  return editWhitelist(prisma, merchantId, by, (rules) => {
    if (rules.includes(rule)) return rules;
    if (rules.length >= MAX_IP_RULES) throw fieldErrors({ rule: [`At most ${MAX_IP_RULES} rules; remove one first.`] });
    return [...rules, rule];
  });
}

/** `rule` is canonical; a rule stored before rules were canonicalised (host bits set) still matches it. */
export function removeIpRule(prisma: PrismaClient, merchantId: number, rule: string, by: AuditBy): Promise<Merchant> {
  const canonicalOf = (stored: string) => {
    try {
      return canonicalIpRule(stored);
    } catch {
      return stored;
    }
  };
  return editWhitelist(prisma, merchantId, by, (rules) => rules.filter((r) => r !== rule && canonicalOf(r) !== rule));
}
