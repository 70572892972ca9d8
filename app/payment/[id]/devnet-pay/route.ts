import { otherMethods } from '@/lib/http/route';
import { z } from 'zod';
import { AppError, invalidInput, notFound } from '@/lib/errors';
import { errorResponse, jsonResponse } from '@/lib/http/errors';
import { isPayable } from '@/lib/invoices/payable';
import { INVOICE_NOT_FOUND } from '@/lib/invoices/service';
import { currencySchema } from '@/lib/money/tokens';
import { devnetUrl, payFromFaucet } from '@/lib/devnet/faucet';
import { loadPublicInvoice } from '@/lib/invoices/loadPublic';

export const dynamic = 'force-dynamic';

const bodySchema = z.object({ currency: currencySchema });
// A static address takes any amount; this is what one demo click sends.
const STATIC_DEMO_AMOUNT = '10';

/**
 * Development only: pays the invoice from the devnet faucet, so a person can
 * try the whole flow without a wallet. On any other chain the route does not exist.
 */
export async function POST(req: Request, ctx: { params: Promise<{ id: string }> }): Promise<Response> {
  const url = await devnetUrl();
  if (!url) return errorResponse(notFound('Not found.'));
  const view = await loadPublicInvoice((await ctx.params).id);
  if (!view) return errorResponse(notFound(INVOICE_NOT_FOUND));
  const body = bodySchema.safeParse(await req.json().catch(() => null));
  const token = body.success ? view.tokens.find((t) => t.currency === body.data.currency) : undefined;
  if (!token) return errorResponse(invalidInput(`currency: must be one of ${view.tokens.map((t) => t.currency).join(', ')}`));
  const amount = token.missing ?? STATIC_DEMO_AMOUNT;
  if (!isPayable(view) || amount === '0') return errorResponse(new AppError('CONFLICT', 'Nothing to pay on this invoice'));
  try {
    const txid = await payFromFaucet(url, { address: view.address, amount, currency: token.currency });
    return jsonResponse({ txid, amount, currency: token.currency }, 202);
  } catch (err) {
    return errorResponse(new AppError('UPSTREAM_FAILED', `Devnet payment failed: ${(err as Error).message}`));
  }
}

// Any other method: a JSON 405, not Next's empty one.
export const { GET, PUT, PATCH, DELETE } = otherMethods(['POST']);
