import type { Transaction } from '@/lib/generated/prisma/client';
import { tokenAmountJson } from '@/lib/money/tokens';
import { isoMicro } from '@/lib/time';
import { amlCheckSchema, type TransactionJson } from './schemas';

/** The Transaction object of spec 2.2. */
export function transactionJson(t: Transaction): TransactionJson {
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
