import { z } from 'zod';
import { TransactionType } from '@/lib/generated/prisma/enums';
import { dateSchema, orderingSchema, upperCase } from '@/lib/http/listQuery';
import { pageQuerySchema } from '@/lib/http/pagination';
import { currencySchema } from '@/lib/money/tokens';

export const MAX_TRANSACTION_PAGE = 300;
export const TRANSACTION_ORDERING = ['created_at', 'amount', 'status'] as const;

export const listTransactionsQuerySchema = pageQuerySchema(MAX_TRANSACTION_PAGE).extend({
  type: z.preprocess(upperCase, z.enum(Object.values(TransactionType), { error: 'Must be PAYMENT, TRANSFER, TOPUP or ACTIVATION.' })).optional(),
  invoice_id: z.string().regex(/^\d{1,9}$/, 'invoice_id must be an invoice id.').transform(Number).optional(),
  from_address: z.string().trim().min(1).optional(),
  to_address: z.string().trim().min(1).optional(),
  trn_hash: z.string().trim().min(1).optional(),
  has_aml: z.enum(['true', 'false', 'True', 'False', '1', '0'], { error: 'has_aml must be true or false.' }).transform((v) => v === 'true' || v === 'True' || v === '1').optional(),
  currency: z.preprocess(upperCase, currencySchema).optional(),
  date_from: dateSchema('date_from').optional(),
  date_to: dateSchema('date_to').optional(),
  ordering: orderingSchema(TRANSACTION_ORDERING).default('-created_at'),
  search: z.string().trim().max(200).optional(),
});

export type ListTransactionsQuery = z.output<typeof listTransactionsQuerySchema>;
