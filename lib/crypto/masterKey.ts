import { config } from '@/lib/config';
import { keyRingFrom, type KeyRing } from './secretBox';

export function masterKeyRing(): KeyRing {
  const c = config();
  return keyRingFrom(c.MASTER_KEY, c.MASTER_KEYS_PREVIOUS);
}
