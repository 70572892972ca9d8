import type { Currency } from '@/lib/money/tokens';

export type AmlStatus = 'SUCCESS' | 'FAILED' | 'TIMEOUT' | 'ERROR';
export type RiskLevel = 'low' | 'medium' | 'high';

export interface AmlRequest {
  txId: string;
  address: string;
  currency: Currency;
}

/** What a provider reports, normalised to a 0..100 score. */
export interface AmlResult {
  id: string;
  riskScore: number;
  riskLevel: RiskLevel;
  exposure: Record<string, number>;
  reportUrl: string;
}

export interface AmlProvider {
  check(request: AmlRequest): Promise<AmlResult>;
}

export class AmlTimeoutError extends Error {}

/**
 * The provider refused us rather than failed: bad or missing credentials, a wrong URL, a
 * refused check. Retrying will not help and letting the payment through would pass every
 * payment unscreened, so the check fails closed: the payment is held (issue 13, case 10).
 */
export class AmlConfigError extends Error {}

export function riskLevelOf(score: number): RiskLevel {
  return score >= 75 ? 'high' : score >= 40 ? 'medium' : 'low';
}
