import { publicBaseUrl } from '@/lib/config';
import type { WorkerSettings } from '@/lib/worker/settings';
import { HttpAmlProvider } from './http';
import { LocalAmlProvider } from './local';
import type { AmlProvider } from './provider';

export function amlProviderFrom(s: WorkerSettings): AmlProvider {
  return s.AML_PROVIDER === 'http'
    ? new HttpAmlProvider({ url: s.AML_HTTP_URL, accessId: s.AML_ACCESS_ID, accessKey: s.AML_ACCESS_KEY, timeoutMs: s.AML_TIMEOUT_MS })
    : new LocalAmlProvider(s.AML_FLAGGED_ADDRESSES.split(',').map((a) => a.trim()).filter(Boolean), publicBaseUrl());
}
