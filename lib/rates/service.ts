import { config } from '@/lib/config';
import { fieldErrors, notFound } from '@/lib/errors';
import { currencySchema } from '@/lib/money/tokens';
import type { RateJson } from './schemas';
import type { RateSource } from './source';

/** The Rate object of spec 2.5 for a `currency` query value. */
export async function rateJson(rates: RateSource, currencyParam: string | null): Promise<RateJson> {
  if (currencyParam === null || currencyParam.trim() === '') throw fieldErrors({ currency: ['This field is required.'] });
  const currency = currencySchema.safeParse(currencyParam.trim().toUpperCase());
  if (!currency.success) throw notFound('Currency not found');
  const quote = await rates.quote(currency.data);
  return { currency: quote.currency, rate: Number(quote.rateUsd), fee: Number(config().TOPUP_FEE_PERCENT) };
}
