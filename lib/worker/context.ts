import type { AmlProvider } from '@/lib/aml/provider';
import type { Chain } from '@/lib/chain/types';
import type { DerivedAccount } from '@/lib/chain/keys';
import type { PrismaClient } from '@/lib/generated/prisma/client';
import type { RateSource } from '@/lib/rates/source';
import type { WorkerSettings } from '@/lib/config';

/** Everything a worker step needs, passed explicitly so steps stay testable. */
export interface WorkerContext {
  prisma: PrismaClient;
  chain: Chain;
  settings: WorkerSettings;
  aml: AmlProvider;
  rates: RateSource;
  /** Names this process in row leases. */
  owner: string;
  /** Pays the TRX that invoice addresses need to move USDT; charged to the merchant. */
  gasWallet: DerivedAccount;
  forwardingFeePercent: string;
  topupFeePercent: string;
}
