import { chainConfig, type ChainConfig } from '@/lib/config';
import { TronChain } from './tron';
import type { Chain } from './types';
import { singleton } from '@/lib/singletons';

export * from './types';
export * from './errors';
export { parseChainConfig, type ChainConfig } from '@/lib/config';
export { NETWORKS, type NetworkName } from './networks';

export function createChain(config: ChainConfig): Chain {
  return new TronChain(config);
}

/** The process-wide chain, configured from TRON_* environment variables. */
export function chain(): Chain {
  return singleton('chain', () => createChain(chainConfig()));
}
