import type { Transaction } from '@/lib/generated/prisma/client';
import { toJsonNumber } from '@/lib/money/decimal';
import { TOKEN_DECIMALS } from '@/lib/money/tokens';
import { isoMicro } from '@/lib/time';
import type { TransactionJson } from './schemas';

/** The Transaction object of spec 2.2. */
export function transactionJson(t: Transaction): TransactionJson {
  return {
    trn_hash: t.trnHash,
    invoice: t.invoiceId,
    type: t.type,
    from_address: t.fromAddress,
    to_address: t.toAddress,
    amount: toJsonNumber(t.amountUnits, TOKEN_DECIMALS),
    currency: t.currency,
    // Written by lib/aml/check.ts as an AmlCheckRecord.
    aml_check: (t.amlCheck ?? null) as TransactionJson['aml_check'],
    event_id: t.eventId,
    created_at: isoMicro(t.createdAt),
  };
}
