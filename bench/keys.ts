import { accountXpub, deriveAccount } from '@/lib/chain/keys';

/**
 * `npm run bench:keys`: the CPU a fresh process spends on HD keys (lib/chain/keys.ts) where the
 * service derives them: preparing the spare accounts (lib/merchants/accounts.ts: the service's
 * and fifty merchants', as `npm start` on a new database and every test web server's start do)
 * and signing keys for one merchant's invoices (the worker). Each figure is process CPU (user and
 * system), in this order in one process, so the first includes the phrase's seed and the curve's
 * first use.
 */
const MNEMONIC = 'test test test test test test test test test test test junk';

function cpuMs(what: () => void): number {
  const before = process.cpuUsage();
  what();
  const used = process.cpuUsage(before);
  return (used.user + used.system) / 1000;
}

const first = cpuMs(() => accountXpub(MNEMONIC, 0));
const accounts = cpuMs(() => {
  for (let account = 1; account <= 50; account++) accountXpub(MNEMONIC, account);
});
const invoices = cpuMs(() => {
  for (let index = 0; index < 20; index++) deriveAccount(MNEMONIC, 7, 'invoice', index);
});
console.log(`keys: the service account's xpub (the seed, the curve's first use): ${first.toFixed(0)} ms CPU`);
console.log(`keys: fifty more account xpubs: ${accounts.toFixed(0)} ms CPU`);
console.log(`keys: twenty invoice keys of one account: ${invoices.toFixed(0)} ms CPU`);
