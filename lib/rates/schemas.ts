import { z } from 'zod';
import { currencySchema } from '@/lib/money/tokens';

/** The Rate object of spec 2.5 (GET /rates). */
export const rateSchema = z
  .object({
    currency: currencySchema,
    rate: z.number().describe('USD per token'),
    fee: z.number().describe('TOPUP_FEE_PERCENT: percentage charged on USDT balance top-ups'),
  })
  .meta({ id: 'Rate', description: 'A token\'s rate in USD' });

export type RateJson = z.output<typeof rateSchema>;
