import { AUDIT_CSV_HEADER, auditBatches, auditCsvRow, listAudit } from '@/lib/audit/list';
import { audited } from '@/lib/audit/record';
import { auditQuerySchema } from '@/lib/audit/schemas';
import { requireRecentAuth } from '@/lib/auth/reauth';
import { API_KEY_NOT_FOUND, changeApiKeyIps, hashApiKey, issueApiKey, listApiKeys, revokeApiKey } from '@/lib/auth/apiKeys';
import { changePassword, passwordChangeSchema } from '@/lib/auth/passwordChange';
import { apiKeyIpsSchema, newApiKeySchema, newPasskeySchema, passkeyNameSchema, twoFactorCodeSchema } from '@/lib/auth/schemas';
import { PASSKEY_NOT_FOUND, registerPasskey, registrationOptions, removePasskey, renamePasskey } from '@/lib/auth/passkeys';
import { throttledSignIn } from '@/lib/auth/signInThrottle';
import { confirmTotp, currentTwoFactorJson, startTotp, turnOffTotp, twoFactorJson, useSecondFactor } from '@/lib/auth/twoFactor';
import { fieldErrors, invalidInput, notFound } from '@/lib/errors';
import { csvStream } from '@/lib/export/csv';
import { INVOICE_CSV_HEADER, invoiceCsvRow } from '@/lib/invoices/csv';
import { invoiceDetail } from '@/lib/invoices/detail';
import { checkInvoiceCreationRate } from '@/lib/invoices/creationRate';
import { invoiceBatches } from '@/lib/invoices/list';
import { createInvoiceSchema, listInvoicesQuerySchema } from '@/lib/invoices/schemas';
import { invoiceJson } from '@/lib/invoices/serialize';
import { cancelInvoice, createInvoice, INVOICE_NOT_FOUND } from '@/lib/invoices/service';
import { ipRuleSchema, settingsSchema } from '@/lib/merchants/schemas';
import { addIpRule, changesGuardedSetting, removeIpRule, rotateWebhookSecret, settingsJson, updateSettings, webhookSecret } from '@/lib/merchants/settings';
import { PayoutReturnError, payoutReturnJson, requestPayoutReturn } from '@/lib/payouts/returns';
import { payoutReturnSchema } from '@/lib/payouts/schemas';
import { createPayoutResponse, payoutEstimateResponse } from '@/lib/payouts/service';
import { rateSource } from '@/lib/rates';
import { cancelRefund, createRefund, estimateRefund, listRefunds, REFUND_NOT_FOUND, refundableAmounts } from '@/lib/refunds/service';
import { splitPage } from '@/lib/schemas/page';
import { dashboardRowBatches, TRANSACTION_CSV_HEADER, transactionCsvRow } from '@/lib/transactions/csv';
import { dashboardTransactionRows } from '@/lib/transactions/releases';
import { dashboardTransactionsQuerySchema, releaseHeldSchema } from '@/lib/transactions/schemas';
import { listTransactions, transactionBatches } from '@/lib/transactions/service';
import { parseOrThrow } from '@/lib/validation';
import { getDelivery, listDeliveries } from '@/lib/webhooks/deliveryLog';
import { DELIVERY_NOT_FOUND, eventIdOf, resendDelivery } from '@/lib/webhooks/resend';
import { deliveriesQuerySchema } from '@/lib/webhooks/schemas';
import { deliveryDetailJson, deliveryJson } from '@/lib/webhooks/serialize';
import { standardWebhooksSecret } from '@/lib/webhooks/signature';
import { dashboardBy } from '../audit';
import { csvResponse } from '../csv';
import { pageEnvelope } from '../pagination';
import { releaseHeld } from '../releaseHeld';
import { idParam, queryObject, readJson } from '../request';
import { routeOf, type Handler, type Method, type ParamsOf, type Route } from '../router';
import { listInvoicesRoute } from '../api/routes';
import { ROLES, type MemberRole } from '@/lib/auth/roles';
import { refuseRequirementWithoutOwnFactor, requireStoreTwoFactor } from '@/lib/auth/storeTwoFactor';
import { cancelInvitation, INVITATION_UNKNOWN, inviteMember, invitationSchema, pendingInvitations } from '@/lib/merchants/invitations';
import { changeMembership, listMembers, MEMBER_NOT_FOUND, requireRole } from '@/lib/merchants/members';
import { dashboardBaseUrl } from '@/lib/config';
import { memberRoleSchema } from '@/lib/merchants/schemas';
import type { DashboardCaller } from './authenticate';

const route = routeOf<DashboardCaller>();

/**
 * A row of the dashboard's table: the router's route and the member roles that may call it, as data
 * (as ApiRoute's scope), and whether it is the caller's own login (`ownLogin`): those a member of a
 * store that requires two-factor sign-in may call before it has set one up (lib/auth/storeTwoFactor.ts).
 */
export interface DashboardRoute extends Route<DashboardCaller> {
  readonly roles: readonly MemberRole[];
  readonly ownLogin: boolean;
}

// Who may do what in a store: ROLES (lib/auth/roles.ts), named by each row of the table below.

/** A route the caller's role must allow: checked before the handler runs, so a refused call reads and changes nothing. */
function dashboardRoute<Path extends string>(method: Method, path: Path, roles: readonly MemberRole[], handler: Handler<ParamsOf<Path>, DashboardCaller>): DashboardRoute {
  const row = route(method, path, async (ctx) => {
    requireRole(ctx.role, roles);
    requireStoreTwoFactor(ctx.merchant, ctx.user);
    return handler(ctx);
  });
  return { ...row, roles, ownLogin: false };
}

/** A route of the caller's own login, every member's: open before the second factor a store requires is set up. */
function ownLoginRoute<Path extends string>(method: Method, path: Path, handler: Handler<ParamsOf<Path>, DashboardCaller>): DashboardRoute {
  return { ...route(method, path, handler), roles: ROLES.ownLogin, ownLogin: true };
}

const noStore = { 'cache-control': 'no-store' };
// The same secret twice: as the HMAC key of X-Webhook-Signature, and in the `whsec_` form Standard Webhooks libraries read.
const secretJson = (secret: string) => Response.json({ secret, standard_webhooks_secret: standardWebhooksSecret(secret) }, { headers: noStore });

/**
 * The dashboard's JSON API (components/dashboard/api.ts calls it), every route of it: method,
 * path below /dashboard/api, handler. The same router as the merchant API's (lib/http/router.ts)
 * answers everything else from this table (404, 405, OPTIONS and HEAD), behind the session, the
 * same-origin and the JSON-body checks (./authenticate.ts). Changes that move funds, open the
 * account to others or change what customers see ask for a recent sign-in or the password again
 * (`requireRecentAuth`, lib/auth/reauth.ts), each where its handler says.
 */
export const DASHBOARD_ROUTES: readonly DashboardRoute[] = [
  // The API's GET /payment/list, behind the session.
  dashboardRoute('GET', '/invoices', ROLES.read, listInvoicesRoute),

  dashboardRoute('POST', '/invoices', ROLES.invoices, async ({ req, db, merchant }) => {
    const input = parseOrThrow(createInvoiceSchema, await readJson(req));
    await checkInvoiceCreationRate(`merchant:${merchant.id}`);
    return invoiceJson(await createInvoice(db, rateSource(), merchant, input));
  }),

  /** CSV of every invoice the list's filters match (limit and offset are ignored), streamed in batches. */
  dashboardRoute('GET', '/invoices/export', ROLES.exports, async ({ url, db, merchant }) => {
    const { filter } = splitPage(parseOrThrow(listInvoicesQuerySchema, queryObject(url)));
    return csvResponse('invoices', csvStream(INVOICE_CSV_HEADER, invoiceBatches(db, merchant, filter), invoiceCsvRow));
  }),

  // One invoice with everything that happened to it: payments, sends and webhooks (lib/invoices/detail.ts).
  // A payout's page also shows what it can give back (its excess, once COMPLETED) and its return: `payout_return`, null for other invoices.
  dashboardRoute('GET', '/invoices/:id', ROLES.read, async ({ params, db, merchant }) => {
    const detail = await invoiceDetail(db, merchant, idParam(params.id, INVOICE_NOT_FOUND));
    return { ...detail, payout_return: await payoutReturnJson(db, detail.invoice.id) };
  }),

  dashboardRoute('POST', '/invoices/:id/cancel', ROLES.invoices, async ({ params, db, merchant }) => invoiceJson(await cancelInvoice(db, merchant, idParam(params.id, INVOICE_NOT_FOUND)))),

  // An invoice's refunds, and what is left to refund in each token (docs/dashboard.md, "Refunds").
  dashboardRoute('GET', '/invoices/:id/refunds', ROLES.read, async ({ params, db, merchant }) => {
    const id = idParam(params.id, INVOICE_NOT_FOUND);
    const [results, refundable] = await Promise.all([listRefunds(db, merchant, id), refundableAmounts(db, merchant, id)]);
    // Each refund's payout's return (its excess, once sent), by payout id: returned from the refund's card too.
    const payouts = await Promise.all(results.filter((r) => r.payout !== null).map(async (r) => [r.payout!, await payoutReturnJson(db, r.payout!)] as const));
    return { results, refundable, payout_returns: Object.fromEntries(payouts) };
  }),

  // A refund, as the API's `POST /payment/{id}/refund` makes it (docs/refunds.md). It sends money to
  // an address, or lets whoever holds a link say where: a recent sign-in or the password again.
  dashboardRoute('POST', '/invoices/:id/refunds', ROLES.money, async (ctx) => {
    const id = idParam(ctx.params.id, INVOICE_NOT_FOUND);
    const body = await readJson(ctx.req);
    await requireRecentAuth(ctx);
    return createRefund(ctx.db, ctx.merchant, id, body, dashboardBy(ctx));
  }),

  // What a refund would cost before it is made: the dialog shows it before the merchant confirms. Creates nothing.
  dashboardRoute('POST', '/invoices/:id/refunds/estimate', ROLES.money, async ({ req, params, db, merchant }) => estimateRefund(db, merchant, idParam(params.id, INVOICE_NOT_FOUND), await readJson(req))),

  // Cancels a refund waiting for its address or its top-up, as the API's `DELETE /refund/{id}/cancel`.
  dashboardRoute('POST', '/refunds/:id/cancel', ROLES.money, async ({ params, db, merchant }) => cancelRefund(db, merchant, idParam(params.id, REFUND_NOT_FOUND))),

  // The API's GET /transaction/list, behind the dashboard session, with the energy pool's operations
  // too (which the API leaves out, docs/api.md), and what became of released held funds.
  dashboardRoute('GET', '/transactions', ROLES.read, async ({ url, db, merchant }) => {
    const { filter, page } = splitPage(parseOrThrow(dashboardTransactionsQuerySchema, queryObject(url)));
    const { count, rows } = await listTransactions(db, merchant.id, filter, page, 'dashboard');
    return pageEnvelope(url, page, count, await dashboardTransactionRows(db, rows));
  }),

  // CSV of every transaction the list's filters match (limit and offset are ignored), streamed in batches.
  dashboardRoute('GET', '/transactions/export', ROLES.exports, async ({ url, db, merchant }) => {
    const { filter } = splitPage(parseOrThrow(dashboardTransactionsQuerySchema, queryObject(url)));
    return csvResponse('transactions', csvStream(TRANSACTION_CSV_HEADER, dashboardRowBatches(db, transactionBatches(db, merchant.id, filter, 'dashboard')), transactionCsvRow));
  }),

  // A merchant releases held funds: forward them, or return them to an address (docs/dashboard.md).
  // A refund sends funds to an address the caller names, so it needs a recent sign-in or the password
  // again, as a target wallet change does (issue 27, finding 2). A forward goes to the merchant's own
  // target wallet, whose change already needs it, so it does not ask. Answered as the API's
  // `POST /held_payment/{trn_hash}/release` is (lib/http/releaseHeld.ts).
  dashboardRoute('POST', '/transactions/:hash/release', ROLES.money, async (ctx) => {
    const release = parseOrThrow(releaseHeldSchema, await readJson(ctx.req));
    if (release.action === 'REFUND') await requireRecentAuth(ctx);
    return releaseHeld(ctx.db, ctx.merchant.id, ctx.params.hash, release, dashboardBy(ctx));
  }),

  // Creates a mass payout (a MULTIPLE_TRANSFER invoice), as POST /v1/api/payment/multiple_transfer/create does.
  // It sends the merchant's funds to addresses the caller names, so it needs a recent sign-in or the
  // password again, as a target wallet change does (issue 27, finding 2). The API's own route is
  // authorised by an API key, not a session, and is unchanged.
  dashboardRoute('POST', '/payouts', ROLES.money, async (ctx) => {
    const body = await readJson(ctx.req);
    await checkInvoiceCreationRate(`merchant:${ctx.merchant.id}`);
    await requireRecentAuth(ctx);
    return createPayoutResponse(ctx.db, ctx.merchant, body, dashboardBy(ctx));
  }),

  // The mass payout cost estimate (spec 2.6), as POST /v1/api/payment/multiple_transfer/calculate answers it.
  dashboardRoute('POST', '/payouts/estimate', ROLES.money, async ({ req, db }) => payoutEstimateResponse(db, await readJson(req))),

  // A merchant asks for a payout that cannot finish to be returned to an address (docs/payouts.md,
  // "Returning a payout"). It moves funds, so it needs a recent sign-in or the password again.
  dashboardRoute('POST', '/payouts/:id/return', ROLES.money, async (ctx) => {
    const { address } = parseOrThrow(payoutReturnSchema, await readJson(ctx.req));
    await requireRecentAuth(ctx);
    try {
      const r = await requestPayoutReturn(ctx.db, idParam(ctx.params.id, INVOICE_NOT_FOUND), address, dashboardBy(ctx), ctx.merchant.id);
      return { id: r.invoiceId, return_address: r.address, requested_at: r.requestedAt.toISOString() };
    } catch (err) {
      if (!(err instanceof PayoutReturnError)) throw err;
      if (err.code === 'NOT_FOUND') throw notFound(err.message);
      throw err.code === 'BAD_ADDRESS' ? fieldErrors({ address: [err.message] }) : invalidInput(err.message);
    }
  }),

  dashboardRoute('GET', '/keys', ROLES.keys, async ({ db, merchant }) => listApiKeys(db, merchant.id)),

  // The plain key is in this answer only; afterwards the dashboard knows just its prefix.
  dashboardRoute('POST', '/keys', ROLES.keys, async (ctx) => {
    const { label, scopes, allowed_ips } = parseOrThrow(newApiKeySchema, await readJson(ctx.req));
    // A key can create payouts (when its scopes allow it): issuing one needs a recent sign-in or the password.
    await requireRecentAuth(ctx);
    // Without `scopes`, every scope (issueApiKey), as the dashboard's keys always had. The key and its audit row
    // commit together; the row names the key by its id, found by its hash (the key itself is never kept).
    const key = await audited(ctx.db, dashboardBy(ctx), (tx) => issueApiKey(tx, ctx.merchant.id, label, scopes, allowed_ips), async (issued, tx) => {
      const { id, allowedIps, ...after } = await tx.apiKey.findUniqueOrThrow({ where: { keyHash: hashApiKey(issued) }, select: { id: true, label: true, prefix: true, scopes: true, allowedIps: true } });
      // The key's own allow-list is named only when it has one: a key without stays logged as before.
      return { merchantId: ctx.merchant.id, action: 'key_created', subject: id, after: { ...after, ...(allowedIps.length > 0 && { allowed_ips: allowedIps }) } };
    });
    return Response.json({ key }, { headers: noStore });
  }),

  // Where a key may be used from (issue 40): who may call the API with it, so guarded as the
  // store's whitelist is. The whole list, replacing the key's; `[]` lets it in wherever the store does.
  dashboardRoute('PATCH', '/keys/:id', ROLES.keys, async (ctx) => {
    const { allowed_ips } = parseOrThrow(apiKeyIpsSchema, await readJson(ctx.req));
    await requireRecentAuth(ctx);
    const id = idParam(ctx.params.id, API_KEY_NOT_FOUND);
    return changeApiKeyIps(ctx.db, ctx.merchant.id, id, allowed_ips, dashboardBy(ctx));
  }),

  dashboardRoute('DELETE', '/keys/:id', ROLES.keys, async (ctx) => {
    // Revoking a key stops the merchant's shop from calling the API (issue 34, item 5): a recent
    // sign-in or the password, asked before the key is looked up, so an unknown id answers alike.
    await requireRecentAuth(ctx);
    const id = idParam(ctx.params.id, API_KEY_NOT_FOUND);
    await audited(ctx.db, dashboardBy(ctx), (tx) => revokeApiKey(tx, ctx.merchant.id, id), () => ({ merchantId: ctx.merchant.id, action: 'key_revoked', subject: id }));
    return new Response(null, { status: 204 });
  }),

  dashboardRoute('GET', '/settings', ROLES.read, async ({ merchant }) => settingsJson(merchant)),

  dashboardRoute('PATCH', '/settings', ROLES.settings, async (ctx) => {
    const input = parseOrThrow(settingsSchema, await readJson(ctx.req));
    // Where payments are forwarded is the owner's alone (an admin changes the other settings).
    if (input.target_wallet_address !== undefined && input.target_wallet_address !== ctx.merchant.targetWalletAddress) requireRole(ctx.role, ['owner'], 'Changing the payout wallet');
    // So is what every member must sign in with (issue 40), turned on only by an owner who has a second factor.
    if (input.require_two_factor !== undefined && input.require_two_factor !== ctx.merchant.requireTwoFactor) {
      requireRole(ctx.role, ['owner'], 'Requiring two-factor sign-in');
      refuseRequirementWithoutOwnFactor(input.require_two_factor, ctx.user);
    }
    // Where incoming payments are forwarded, what customers see on the payment page, where webhooks
    // go: changing any of them needs a recent sign-in or the password (lib/merchants/settings.ts).
    if (changesGuardedSetting(ctx.merchant, input)) await requireRecentAuth(ctx);
    return settingsJson(await updateSettings(ctx.db, ctx.merchant, input, dashboardBy(ctx)));
  }),

  // Whoever holds the secret can forge webhooks the merchant's shop trusts: both need a recent sign-in or the password.
  dashboardRoute('GET', '/settings/webhook-secret', ROLES.webhooks, async (ctx) => {
    await requireRecentAuth(ctx);
    return secretJson(webhookSecret(ctx.merchant));
  }),

  dashboardRoute('POST', '/settings/webhook-secret', ROLES.webhooks, async (ctx) => {
    await requireRecentAuth(ctx);
    return secretJson(await rotateWebhookSecret(ctx.db, ctx.merchant.id, dashboardBy(ctx)));
  }),

  // Who may call the API with the merchant's keys: changes need a recent sign-in or the password.
  dashboardRoute('POST', '/settings/ip-whitelist', ROLES.settings, async (ctx) => {
    const { rule } = parseOrThrow(ipRuleSchema, await readJson(ctx.req));
    await requireRecentAuth(ctx);
    return settingsJson(await addIpRule(ctx.db, ctx.merchant.id, rule, dashboardBy(ctx)));
  }),

  dashboardRoute('DELETE', '/settings/ip-whitelist', ROLES.settings, async (ctx) => {
    const { rule } = parseOrThrow(ipRuleSchema, queryObject(ctx.url));
    await requireRecentAuth(ctx);
    return settingsJson(await removeIpRule(ctx.db, ctx.merchant.id, rule, dashboardBy(ctx)));
  }),

  // Changes the password and signs out every session (the caller's too).
  ownLoginRoute('POST', '/settings/password', async ({ req, db, user, ip }) => {
    const input = parseOrThrow(passwordChangeSchema, await readJson(req));
    await changePassword(db, user, ip ?? 'unknown', input);
    return new Response(null, { status: 204 });
  }),

  // Two-factor sign-in (issue 40, lib/auth/twoFactor.ts): enrolment in two steps, then off with a code.
  ownLoginRoute('GET', '/settings/two-factor', async ({ user }) => twoFactorJson(user)),

  // A new authenticator secret, off until confirmed: shown once, so a recent sign-in or the password.
  ownLoginRoute('POST', '/settings/two-factor/totp', async (ctx) => {
    await requireRecentAuth(ctx);
    return Response.json(await startTotp(ctx.db, ctx.user), { headers: noStore });
  }),

  // The recovery codes are in this answer only.
  ownLoginRoute('POST', '/settings/two-factor/totp/confirm', async (ctx) => {
    const { code } = parseOrThrow(twoFactorCodeSchema, await readJson(ctx.req));
    return Response.json(await confirmTotp(ctx.db, ctx.user, ctx.merchant.id, code, dashboardBy(ctx)), { headers: noStore });
  }),

  // Turning it off takes a code (or a recovery code) besides a recent sign-in: a stolen session alone cannot.
  ownLoginRoute('POST', '/settings/two-factor/totp/disable', async (ctx) => {
    const { code } = parseOrThrow(twoFactorCodeSchema, await readJson(ctx.req));
    await requireRecentAuth(ctx);
    const ok = await throttledSignIn(ctx.db, { email: ctx.user.email, ip: ctx.ip ?? 'unknown' }, async () => ((await useSecondFactor(ctx.db, ctx.user, code)) ? true : null));
    if (!ok) throw fieldErrors({ code: ['Wrong code.'] });
    await turnOffTotp(ctx.db, ctx.user, ctx.merchant.id, dashboardBy(ctx));
    return currentTwoFactorJson(ctx.db, ctx.user.id);
  }),

  // Passkeys (lib/auth/passkeys.ts): the options for the browser's startRegistration, then its answer.
  // Adding one is guarded as setting up an authenticator app is: a recent sign-in or the password (and second factor).
  ownLoginRoute('POST', '/settings/two-factor/passkeys/options', async (ctx) => {
    await requireRecentAuth(ctx);
    return Response.json(await registrationOptions(ctx.db, ctx.user), { headers: noStore });
  }),

  // The recovery codes are in this answer only (when this passkey is the user's first second factor).
  ownLoginRoute('POST', '/settings/two-factor/passkeys', async (ctx) => {
    const input = parseOrThrow(newPasskeySchema, await readJson(ctx.req));
    return Response.json(await registerPasskey(ctx.db, ctx.user, ctx.merchant.id, input, dashboardBy(ctx)), { status: 201, headers: noStore });
  }),

  // A label: nothing a sign-in depends on, so the session suffices.
  ownLoginRoute('PATCH', '/settings/two-factor/passkeys/:id', async (ctx) => {
    const { name } = parseOrThrow(passkeyNameSchema, await readJson(ctx.req));
    return renamePasskey(ctx.db, ctx.user, ctx.merchant.id, idParam(ctx.params.id, PASSKEY_NOT_FOUND), name, dashboardBy(ctx));
  }),

  // Removing one takes the password and the second factor however recent the sign-in, as turning TOTP off takes a code.
  ownLoginRoute('DELETE', '/settings/two-factor/passkeys/:id', async (ctx) => {
    await requireRecentAuth(ctx, { always: true });
    await removePasskey(ctx.db, ctx.user, ctx.merchant.id, idParam(ctx.params.id, PASSKEY_NOT_FOUND), dashboardBy(ctx));
    return currentTwoFactorJson(ctx.db, ctx.user.id);
  }),

  // The store's audit log (docs/dashboard.md, "Audit log"): read only, newest first; no route changes it.
  dashboardRoute('GET', '/audit', ROLES.audit, async ({ url, db, merchant }) => {
    const { filter, page } = splitPage(parseOrThrow(auditQuerySchema, queryObject(url)));
    const { count, rows } = await listAudit(db, merchant.id, filter, page);
    return pageEnvelope(url, page, count, rows);
  }),

  // CSV of every row the log's filters match (limit and offset are ignored), streamed in batches.
  dashboardRoute('GET', '/audit/export', ROLES.audit, async ({ url, db, merchant }) => {
    const { filter } = splitPage(parseOrThrow(auditQuerySchema, queryObject(url)));
    return csvResponse('audit-log', csvStream(AUDIT_CSV_HEADER, auditBatches(db, merchant.id, filter), auditCsvRow));
  }),

  dashboardRoute('GET', '/webhooks', ROLES.read, async ({ url, db, merchant }) => {
    const { filter, page } = splitPage(parseOrThrow(deliveriesQuerySchema, queryObject(url)));
    const { count, rows } = await listDeliveries(db, merchant.id, filter, page);
    return pageEnvelope(url, page, count, rows.map(deliveryJson));
  }),

  // One delivery with the payload it sent and the receiver's answer (the log's "View").
  dashboardRoute('GET', '/webhooks/:id', ROLES.read, async ({ params, db, merchant }) => {
    const delivery = await getDelivery(db, merchant.id, idParam(params.id, DELIVERY_NOT_FOUND), DELIVERY_NOT_FOUND);
    return deliveryDetailJson(delivery, await eventIdOf(db, delivery));
  }),

  dashboardRoute('POST', '/webhooks/:id/resend', ROLES.resend, async ({ params, db, merchant }) => deliveryJson(await resendDelivery(db, merchant.id, idParam(params.id, DELIVERY_NOT_FOUND)))),

  // The store's members (docs/dashboard.md, "Members"): every member sees who is in the store; only an owner changes it.
  dashboardRoute('GET', '/members', ROLES.read, async ({ db, merchant, user, role }) => ({ results: await listMembers(db, merchant.id), you: { user_id: user.id, role } })),

  // Invitations (lib/merchants/invitations.ts): pending ones, and a new one by e-mail with a role; the link is
  // e-mailed where SMTP is configured, and answered (once, not stored) otherwise.
  dashboardRoute('GET', '/members/invitations', ROLES.members, async ({ db, merchant }) => ({ results: await pendingInvitations(db, merchant.id) })),

  dashboardRoute('POST', '/members/invitations', ROLES.members, async (ctx) => {
    const input = parseOrThrow(invitationSchema, await readJson(ctx.req));
    const invited = await inviteMember(ctx.db, ctx.merchant, input, { actor: { kind: 'dashboard', email: ctx.user.email }, ip: ctx.ip }, dashboardBaseUrl());
    return Response.json(invited, { headers: noStore });
  }),

  dashboardRoute('DELETE', '/members/invitations/:id', ROLES.members, async (ctx) => {
    await cancelInvitation(ctx.db, ctx.merchant.id, idParam(ctx.params.id, INVITATION_UNKNOWN), dashboardBy(ctx));
    return new Response(null, { status: 204 });
  }),

  dashboardRoute('PATCH', '/members/:userId', ROLES.members, async (ctx) => {
    const { role } = parseOrThrow(memberRoleSchema, await readJson(ctx.req));
    return changeMembership(ctx.db, ctx.merchant.id, { kind: 'role_changed', userId: idParam(ctx.params.userId, MEMBER_NOT_FOUND), role }, dashboardBy(ctx));
  }),

  dashboardRoute('DELETE', '/members/:userId', ROLES.members, async (ctx) => {
    await changeMembership(ctx.db, ctx.merchant.id, { kind: 'removed', userId: idParam(ctx.params.userId, MEMBER_NOT_FOUND) }, dashboardBy(ctx));
    return new Response(null, { status: 204 });
  }),

  // The stores the signed-in user is a member of, for the header's selector; switching is next-auth's session update (lib/auth/session.ts).
  // The user's own, so open before a store's required second factor is set up.
  ownLoginRoute('GET', '/stores', async ({ db, user, merchant }) => {
    const rows = await db.membership.findMany({ where: { userId: user.id }, include: { merchant: { select: { id: true, email: true, storeName: true } } }, orderBy: { createdAt: 'asc' } });
    return { current: merchant.id, results: rows.map((m) => ({ id: m.merchant.id, name: m.merchant.storeName ?? m.merchant.email, role: m.role })) };
  }),
];
