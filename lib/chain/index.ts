import { chainConfig, type ChainConfig } from '@/lib/config';
import { TronChain } from './tron';
import type { Chain } from './types';
import { derived } from '@/lib/singletons';

export * from './types';
export * from './errors';
export { parseChainConfig, type ChainConfig } from '@/lib/config';
export { NETWORKS, type NetworkName } from '@/lib/networks';

export function createChain(config: ChainConfig): Chain {
  return new TronChain(config);
}

/**
 * The chain client configured from TRON_* environment variables: one per copy of lib/ in the
 * process (lib/singletons.ts), so the ChainErrors it throws are the ones its callers test for.
 */
export function chain(): Chain {
  return derived(TronChain, () => createChain(chainConfig()));
}
