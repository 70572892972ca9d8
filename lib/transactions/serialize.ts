import type { Transaction } from '@/lib/generated/prisma/client';
import { tokenAmountJson } from '@/lib/money/tokens';
import { isoMicro } from '@/lib/time';
import { amlCheckSchema, isApiTransactionType, type DashboardTransactionJson, type TransactionJson } from './schemas';

/** The dashboard's transaction: the Transaction object of spec 2.2, with any type (the dashboard shows the energy pool's operations too). */
export function transactionJson(t: Transaction): DashboardTransactionJson {
  return {
    trn_hash: t.trnHash,
    invoice: t.invoiceId,
    type: t.type,
    from_address: t.fromAddress,
    to_address: t.toAddress,
    amount: tokenAmountJson(t.amountUnits),
    currency: t.currency,
    // Written by lib/aml/check.ts as an AmlCheckRecord; parsed so the JSON column has one checked shape.
    aml_check: t.amlCheck === null ? null : amlCheckSchema.parse(t.amlCheck),
    // Not in spec 2.2 (it has no status field); an added field, so existing clients are unaffected (docs/api.md).
    held: t.paymentState === 'HELD' ? { reason: t.heldReason ?? '' } : null,
    event_id: t.eventId,
    created_at: isoMicro(t.createdAt),
  };
}

/**
 * The Transaction object of spec 2.2 as the merchant API answers it. Its rows are read with the
 * API's audience (lib/transactions/service.ts), which never returns the energy pool's operations;
 * one reaching here is a bug, refused rather than answered with a type the spec does not have.
 */
export function apiTransactionJson(t: Transaction): TransactionJson {
  const json = transactionJson(t);
  const { type } = json;
  if (!isApiTransactionType(type)) throw new Error(`transaction ${t.id} of type ${type} is not one of the API's transaction types`);
  return { ...json, type };
}
