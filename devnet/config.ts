import { z } from 'zod';
import { parseEnv } from '@/lib/env';

const schema = z.object({
  DEVNET_HOST: z.string().min(1).default('127.0.0.1'),
  DEVNET_PORT: z.coerce.number().int().min(0, 'DEVNET_PORT must be 0..65535 (0 picks a free port)').max(65535, 'DEVNET_PORT must be 0..65535').default(9090),
  DEVNET_DATA_DIR: z.string().min(1).default('./data/devnet'),
  DEVNET_BLOCK_MS: z.coerce.number().int('DEVNET_BLOCK_MS must be a whole number of milliseconds').min(5, 'DEVNET_BLOCK_MS must be at least 5').default(3000),
  DEVNET_SOLIDIFIED_DEPTH: z.coerce.number().int().min(0, 'DEVNET_SOLIDIFIED_DEPTH must be 0 or more blocks').default(19),
  DEVNET_MNEMONIC: z
    .string()
    .refine((m) => m.trim().split(/\s+/).length >= 12, 'DEVNET_MNEMONIC must be a BIP39 phrase of 12-24 words')
    .default('test test test test test test test test test test test junk'),
  DEVNET_FAUCET_PRIVATE_KEY: z
    .string()
    .regex(/^(0x)?[0-9a-fA-F]{64}$/, 'DEVNET_FAUCET_PRIVATE_KEY must be 64 hex characters')
    .transform((k) => k.replace(/^0x/, '').toLowerCase())
    .optional(),
  // A replica serving the node API some blocks behind, and a balancer alternating between head and replica; off unless a port is set (0 picks one).
  DEVNET_REPLICA_PORT: z.coerce.number().int().min(0, 'DEVNET_REPLICA_PORT must be 0..65535').max(65535, 'DEVNET_REPLICA_PORT must be 0..65535').optional(),
  DEVNET_BALANCER_PORT: z.coerce.number().int().min(0, 'DEVNET_BALANCER_PORT must be 0..65535').max(65535, 'DEVNET_BALANCER_PORT must be 0..65535').optional(),
  DEVNET_REPLICA_LAG: z.coerce.number().int().min(0, 'DEVNET_REPLICA_LAG must be 0 or more blocks').default(0),
  DEVNET_URL: z.string().url('DEVNET_URL must be a URL like http://127.0.0.1:9090').optional(),
});

export type DevnetEnv = z.infer<typeof schema>;

/** Validates the devnet's environment, naming every bad variable at once. */
export function parseDevnetEnv(env: Record<string, string | undefined>): DevnetEnv {
  return parseEnv(schema, env, 'devnet configuration');
}

/** Where the CLI's `pay` finds a running devnet. */
export function devnetUrl(env: DevnetEnv): string {
  return env.DEVNET_URL ?? `http://${env.DEVNET_HOST}:${env.DEVNET_PORT}`;
}
