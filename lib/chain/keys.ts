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

export function derivationPath(merchantId: number, role: AddressRole, index: number): string {
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

export function isValidMnemonic(phrase: string): boolean {
  return Mnemonic.isValidMnemonic(phrase.trim());
}

/** Base58check Tron address (T..., 34 chars, checksum verified). */
export function isTronAddress(value: string): boolean {
  return /^T[1-9A-HJ-NP-Za-km-z]{33}$/.test(value) && TronWeb.isAddress(value);
}
