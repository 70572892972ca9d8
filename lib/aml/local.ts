import { createHash } from 'node:crypto';
import type { AmlProvider, AmlRequest, AmlResult } from './provider';
import { riskLevelOf } from './provider';

/**
 * Deterministic checks for the devnet: senders on the flagged list score 90,
 * everyone else 5. Lets a person (or a test) trigger AML_FAILED at will.
 */
export class LocalAmlProvider implements AmlProvider {
  private readonly flagged: Set<string>;

  constructor(flaggedAddresses: string[], private readonly reportBase: string) {
    this.flagged = new Set(flaggedAddresses);
  }

  async check({ txId, address }: AmlRequest): Promise<AmlResult> {
    const flagged = this.flagged.has(address);
    const riskScore = flagged ? 90 : 5;
    const id = createHash('sha256').update(`${txId}:${address}`).digest('hex').slice(0, 24);
    return {
      id,
      riskScore,
      riskLevel: riskLevelOf(riskScore),
      exposure: flagged ? { sanctions: 0.9, exchange: 0.1 } : { exchange: 0.95, other: 0.05 },
      reportUrl: `${this.reportBase}/aml/reports/${id}.pdf`,
    };
  }
}
