import { PrismaPg } from '@prisma/adapter-pg';
import { PrismaClient } from '@/lib/generated/prisma/client';
import { config } from '@/lib/config';

export function createPrisma(connectionString: string): PrismaClient {
  return new PrismaClient({ adapter: new PrismaPg({ connectionString }) });
}

// One client per process; Next's dev server re-evaluates modules, so keep it on globalThis.
const holder = globalThis as unknown as { __prisma?: PrismaClient };

export function db(): PrismaClient {
  holder.__prisma ??= createPrisma(config().DATABASE_URL);
  return holder.__prisma;
}

export type { PrismaClient };
