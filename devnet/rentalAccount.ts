/**
 * The API key and secret the devnet's emulated energy rental provider accepts (devnet/rental.ts).
 * Public test values, like the devnet's mnemonic: `npm run dev` sets them as ENERGY_RENTAL_API_KEY
 * and ENERGY_RENTAL_API_SECRET (scripts/childEnv.ts). Kept apart so that importing them loads nothing.
 */
export const DEVNET_RENTAL_API_KEY = 'devnet-rental-api-key';
export const DEVNET_RENTAL_API_SECRET = 'devnet-rental-api-secret';
