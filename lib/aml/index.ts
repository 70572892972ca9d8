import { publicBaseUrl } from '@/lib/config';
import type { WorkerSettings } from '@/lib/config';
import { HttpAmlProvider } from './http';
import { LocalAmlProvider } from './local';
import type { AmlProvider } from './provider';

/** The worker's AML provider. Refuses to start with the HTTP provider and no credentials (case 10). */
export function amlProviderFrom(s: WorkerSettings): AmlProvider {
  if (s.AML_PROVIDER === 'http' && (!s.AML_ACCESS_ID || !s.AML_ACCESS_KEY)) {
    throw new Error('worker configuration: AML_PROVIDER=http needs AML_ACCESS_ID and AML_ACCESS_KEY (every check would be refused)');
  }
  return s.AML_PROVIDER === 'http'
    ? new HttpAmlProvider({ url: s.AML_HTTP_URL, accessId: s.AML_ACCESS_ID, accessKey: s.AML_ACCESS_KEY, timeoutMs: s.AML_TIMEOUT_MS })
    : new LocalAmlProvider(s.AML_FLAGGED_ADDRESSES.split(',').map((a) => a.trim()).filter(Boolean), publicBaseUrl());
}
