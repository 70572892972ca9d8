import { TronWeb, utils } from 'tronweb';

const { ethersHDNodeWallet, Mnemonic } = utils.ethersUtils;

/**
 * BIP44 paths under coin type 195 (Tron): one hardened account per merchant,
 * and a "change" level saying what the address is for.
 */
export const AddressRole = { invoice: 0, topup: 1, activation: 2, gas: 3 } as const;
export type AddressRole = keyof typeof AddressRole;

export interface DerivedAccount {
  address: string;
  /** Hex, no 0x prefix: the form tronweb signs with. */
  privateKey: string;
}

type HDNode = ReturnType<typeof ethersHDNodeWallet.fromMnemonic>;
const roots = new Map<string, HDNode>();

// Seed stretching (PBKDF2, 2048 rounds) is the slow part; do it once per phrase.
function rootOf(mnemonic: string): HDNode {
  let root = roots.get(mnemonic);
  if (!root) {
    root = ethersHDNodeWallet.fromMnemonic(Mnemonic.fromPhrase(mnemonic.trim()), 'm');
    roots.set(mnemonic, root);
  }
  return root;
}

function derivationPath(merchantId: number, role: AddressRole, index: number): string {
  if (!Number.isInteger(merchantId) || merchantId < 0 || merchantId >= 2 ** 31) throw new RangeError('merchantId out of range');
  if (!Number.isInteger(index) || index < 0 || index >= 2 ** 31) throw new RangeError('index out of range');
  return `m/44'/195'/${merchantId}'/${AddressRole[role]}/${index}`;
}

export function deriveAccount(mnemonic: string, merchantId: number, role: AddressRole, index = 0): DerivedAccount {
  const node = rootOf(mnemonic).derivePath(derivationPath(merchantId, role, index));
  const privateKey = node.privateKey.replace(/^0x/, '');
  const address = TronWeb.address.fromPrivateKey(privateKey);
  if (!address) throw new Error('Could not derive a Tron address');
  return { address, privateKey };
}

/** m/44'/195'/<account>': a merchant's account (its id), or 0 for the service's own gas wallet. */
function accountPath(account: number): string {
  if (!Number.isInteger(account) || account < 0 || account >= 2 ** 31) throw new RangeError('account out of range');
  return `m/44'/195'/${account}'`;
}

/**
 * The account's extended public key (xpub): every address of the account derives from it
 * (addressFromXpub), none of its private keys does. The web process holds these, never the
 * mnemonic (issue 16); the worker derives private keys from the mnemonic when it signs.
 */
export function accountXpub(mnemonic: string, account: number): string {
  return rootOf(mnemonic).derivePath(accountPath(account)).neuter().extendedKey;
}

type XpubNode = ReturnType<typeof ethersHDNodeWallet.fromExtendedKey>;
const xpubNodes = new Map<string, XpubNode>();

/** The address at <role>/<index> under an account xpub: the same address deriveAccount gives for that account. */
export function addressFromXpub(xpub: string, role: AddressRole, index: number): string {
  if (!Number.isInteger(index) || index < 0 || index >= 2 ** 31) throw new RangeError('index out of range');
  // The role's node is kept: each address then costs one public derivation, not two.
  const cacheKey = `${xpub}/${role}`;
  let node = xpubNodes.get(cacheKey);
  if (!node) {
    node = ethersHDNodeWallet.fromExtendedKey(xpub).deriveChild(AddressRole[role]);
    if (xpubNodes.size > 10_000) xpubNodes.clear();
    xpubNodes.set(cacheKey, node);
  }
  const address = TronWeb.address.fromHex(`41${node.deriveChild(index).address.slice(2)}`);
  if (!address) throw new Error('Could not derive a Tron address');
  return address;
}

export function isValidMnemonic(phrase: string): boolean {
  return Mnemonic.isValidMnemonic(phrase.trim());
}

/** Base58check Tron address (T..., 34 chars, checksum verified). */
export function isTronAddress(value: string): boolean {
  return /^T[1-9A-HJ-NP-Za-km-z]{33}$/.test(value) && TronWeb.isAddress(value);
}
