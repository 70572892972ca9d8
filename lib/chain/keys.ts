import { createHmac } from 'node:crypto';
import { secp256k1 } from '@noble/curves/secp256k1';
import { TronWeb, utils } from 'tronweb';
import { derived } from '@/lib/singletons';

const { ethersHDNodeWallet, Mnemonic, keccak256 } = utils.ethersUtils;

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

export type HDNode = ReturnType<typeof ethersHDNodeWallet.fromMnemonic>;

// Seed stretching (PBKDF2, 2048 rounds) is the slow part; do it once per phrase. A root is an
// object of this copy's ethers (lib/singletons.ts: another copy of lib/ keeps roots of its own).
function rootOf(mnemonic: string): HDNode {
  const roots = derived(ethersHDNodeWallet, () => new Map<string, HDNode>());
  let root = roots.get(mnemonic);
  if (!root) {
    root = ethersHDNodeWallet.fromMnemonic(Mnemonic.fromPhrase(mnemonic.trim()), 'm');
    roots.set(mnemonic, root);
  }
  return root;
}

/** What a root's derivations keep: the accounts derived (by path) and the account nodes (by account). */
interface RootCache {
  accounts: Map<string, DerivedAccount>;
  /** m/44'/195', the coin type's node, above every account. */
  coin?: HDNode;
  accountNodes: Map<number, HDNode>;
}

function cacheOf(root: HDNode): RootCache {
  return derived(root, (): RootCache => ({ accounts: new Map(), accountNodes: new Map() }));
}

const HARDENED = 0x8000_0000;

/**
 * m/44'/195'/<account>' (a merchant's account, its id, or 0 for the service's own gas wallet),
 * kept per root. Each BIP32 level is an elliptic-curve multiplication in JavaScript, and every
 * account derived from the root again repeated the coin type's two levels, every address its
 * account's three: preparing the fifty spare accounts (lib/merchants/accounts.ts), as `npm start`
 * on a new database and every test web server's start do, took 183-198 ms of CPU; one level each
 * from the kept coin node, 106-134 ms (`npm run bench:keys`, issue 41).
 * test/unit/hd-accounts.test.ts checks the keys against ethers' own derivation of each whole path
 * from the phrase.
 */
function accountNode(root: HDNode, account: number): HDNode {
  checkIndex(account, 'account');
  const cache = cacheOf(root);
  let node = cache.accountNodes.get(account);
  if (!node) {
    cache.coin ??= root.derivePath(`m/44'/195'`);
    node = cache.coin.deriveChild(HARDENED + account);
    cache.accountNodes.set(account, node);
    if (cache.accountNodes.size > MAX_DERIVED_ACCOUNTS) cache.accountNodes.delete(cache.accountNodes.keys().next().value!);
  }
  return node;
}

/** A BIP32 index below the hardened range (0 to 2^31 - 1), or a RangeError naming it. */
function checkIndex(value: number, name: string): void {
  if (!Number.isInteger(value) || value < 0 || value >= 2 ** 31) throw new RangeError(`${name} out of range`);
}

function derivationPath(merchantId: number, role: AddressRole, index: number): string {
  checkIndex(merchantId, 'merchantId');
  checkIndex(index, 'index');
  return `m/44'/195'/${merchantId}'/${AddressRole[role]}/${index}`;
}

/**
 * Accounts derived already, newest last, per root: a derivation is five levels of BIP32, each an
 * elliptic-curve multiplication in JavaScript, and one more for the address, and the worker asks for
 * the same invoice's key at every step of its payment (a sixth of its CPU in the settlement tests,
 * issue 41). Bounded, oldest dropped first; the process holds the mnemonic they come from anyway.
 */
const MAX_DERIVED_ACCOUNTS = 10_000;

export function deriveAccount(mnemonic: string, merchantId: number, role: AddressRole, index = 0): DerivedAccount {
  const path = derivationPath(merchantId, role, index);
  const root = rootOf(mnemonic);
  const { accounts } = cacheOf(root);
  const known = accounts.get(path);
  if (known) {
    accounts.delete(path);
    accounts.set(path, known);
    return { ...known };
  }
  // The path's last two levels under the kept account node: the same key as root.derivePath(path).
  const node = accountNode(root, merchantId).deriveChild(AddressRole[role]).deriveChild(index);
  const privateKey = node.privateKey.replace(/^0x/, '');
  const address = TronWeb.address.fromPrivateKey(privateKey);
  if (!address) throw new Error('Could not derive a Tron address');
  accounts.set(path, { address, privateKey });
  if (accounts.size > MAX_DERIVED_ACCOUNTS) accounts.delete(accounts.keys().next().value!);
  return { address, privateKey };
}

/**
 * The account's extended public key (xpub): every address of the account derives from it
 * (addressFromXpub), none of its private keys does. The web process holds these, never the
 * mnemonic (issue 16); the worker derives private keys from the mnemonic when it signs.
 */
export function accountXpub(mnemonic: string, account: number): string {
  return accountNode(rootOf(mnemonic), account).neuter().extendedKey;
}

/** A role's node under an account xpub: its public point (decompressed once) and chain code. */
interface PublicNode {
  point: InstanceType<typeof secp256k1.ProjectivePoint>;
  compressed: Uint8Array;
  chainCode: Buffer;
}

function publicNodeOf(xpub: string, role: AddressRole): PublicNode {
  const cacheKey = `${xpub}/${role}`;
  // Kept per copy of the curve: a point of another copy's @noble/curves is refused by this copy's
  // `add` (`ProjectivePoint expected`), and a web process has several copies (lib/singletons.ts).
  const publicNodes = derived(secp256k1.ProjectivePoint, () => new Map<string, PublicNode>());
  let node = publicNodes.get(cacheKey);
  if (!node) {
    const roleNode = ethersHDNodeWallet.fromExtendedKey(xpub).deriveChild(AddressRole[role]);
    const compressed = Buffer.from(roleNode.publicKey.slice(2), 'hex');
    node = { point: secp256k1.ProjectivePoint.fromHex(compressed), compressed, chainCode: Buffer.from(roleNode.chainCode.slice(2), 'hex') };
    if (publicNodes.size > 10_000) publicNodes.clear();
    publicNodes.set(cacheKey, node);
  }
  return node;
}

/**
 * The address at <role>/<index> under an account xpub: the same address deriveAccount gives for that account.
 *
 * BIP32's public child derivation written out on noble's curve (the library ethers itself uses),
 * because ethers' deriveChild decompresses both points from hex and builds a whole node for each
 * address: 0.74 ms an address against 0.29 ms here, the largest part of an invoice creation's CPU
 * (issue 16). test/unit/hd-accounts.test.ts checks it against ethers' derivation from the mnemonic.
 */
export function addressFromXpub(xpub: string, role: AddressRole, index: number): string {
  checkIndex(index, 'index');
  const parent = publicNodeOf(xpub, role);
  // I = HMAC-SHA512(chain code, serP(K) || ser32(i)); child K_i = parse256(I_L)·G + K.
  const data = Buffer.alloc(37);
  data.set(parent.compressed, 0);
  data.writeUInt32BE(index, 33);
  const tweak = BigInt(`0x${createHmac('sha512', parent.chainCode).update(data).digest().subarray(0, 32).toString('hex')}`);
  // BIP32: I_L >= n or a child at infinity makes the index invalid (probability below 2^-127).
  if (tweak === 0n || tweak >= secp256k1.CURVE.n) throw new Error(`index ${index} gives no valid key (BIP32); skip it`);
  const child = secp256k1.ProjectivePoint.BASE.multiply(tweak).add(parent.point);
  if (child.equals(secp256k1.ProjectivePoint.ZERO)) throw new Error(`index ${index} gives no valid key (BIP32); skip it`);
  // A Tron address is 0x41 and the last 20 bytes of keccak256 of the uncompressed point (without its 0x04).
  const hash = keccak256(child.toRawBytes(false).subarray(1));
  const address = TronWeb.address.fromHex(`41${hash.slice(-40)}`);
  if (!address) throw new Error('Could not derive a Tron address');
  return address;
}

/** Base58check Tron address (T..., 34 chars, checksum verified). */
export function isTronAddress(value: string): boolean {
  return /^T[1-9A-HJ-NP-Za-km-z]{33}$/.test(value) && TronWeb.isAddress(value);
}
