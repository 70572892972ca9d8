import { createHash } from 'node:crypto';
import { z } from 'zod';
import type { AmlProvider, AmlRequest, AmlResult } from './provider';
import { AmlConfigError, AmlTimeoutError, riskLevelOf } from './provider';

// AMLBot-style API: a form POST signed with md5(hash:accessKey:accessId);
// riskscore comes back in 0..1 with signals as shares per category.
const replySchema = z.object({
  result: z.boolean(),
  description: z.string().optional(),
  data: z
    .object({
      uid: z.string(),
      riskscore: z.number().min(0).max(1),
      signals: z.record(z.string(), z.number()).default({}),
      pdfReport: z.string().optional(),
    })
    .optional(),
});

interface Options {
  url: string;
  accessId: string;
  accessKey: string;
  timeoutMs: number;
}

export class HttpAmlProvider implements AmlProvider {
  constructor(private readonly options: Options) {}

  async check({ txId, address, currency }: AmlRequest): Promise<AmlResult> {
    const { url, accessId, accessKey, timeoutMs } = this.options;
    const token = createHash('md5').update(`${txId}:${accessKey}:${accessId}`).digest('hex');
    const form = new URLSearchParams({ hash: txId, address, direction: 'deposit', asset: currency, network: 'TRX', accessId, token, locale: 'en_US' });
    let status: number;
    let body: unknown;
    try {
      // One deadline for the answer and its body: a provider that stalls mid-body has timed out too.
      const res = await fetch(url, { method: 'POST', body: form, signal: AbortSignal.timeout(timeoutMs) });
      status = res.status;
      body = res.ok ? await res.json() : null;
    } catch (err) {
      if ((err as Error).name === 'TimeoutError') throw new AmlTimeoutError(`AML provider did not answer within ${timeoutMs} ms`);
      throw err;
    }
    // 4xx: our request or credentials are wrong (401/403 auth, 400/404 a wrong URL or form); 5xx: an outage.
    if (status >= 400 && status < 500) throw new AmlConfigError(`AML provider answered ${status}: check AML_HTTP_URL, AML_ACCESS_ID and AML_ACCESS_KEY`);
    if (status < 200 || status >= 300) throw new Error(`AML provider answered ${status}`);
    const reply = replySchema.parse(body);
    if (!reply.result) throw new AmlConfigError(`AML provider refused the check: ${reply.description ?? 'no reason given'}`);
    if (!reply.data) throw new Error('AML provider answered without a result');
    const riskScore = Math.round(reply.data.riskscore * 10_000) / 100;
    return {
      id: reply.data.uid,
      riskScore,
      riskLevel: riskLevelOf(riskScore),
      exposure: reply.data.signals,
      reportUrl: reply.data.pdfReport ?? `${url.replace(/\/$/, '')}/report/${reply.data.uid}`,
    };
  }
}
