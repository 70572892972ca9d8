import { BlockList, isIP } from 'node:net';

export class IpRuleError extends Error {}

function normalizeIp(ip: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip);
  return mapped?.[1] ?? ip;
}

type Family = 'ipv4' | 'ipv6';

const BITS: Record<Family, number> = { ipv4: 32, ipv6: 128 };

/** The address as one number, so a prefix can clear its host bits. */
function toNumber(ip: string, family: Family): bigint {
  if (family === 'ipv4') return ip.split('.').reduce((n, octet) => (n << 8n) | BigInt(octet), 0n);
  // An embedded IPv4 tail ("64:ff9b::1.2.3.4") is two 16-bit groups.
  const text = ip.replace(/(\d+)\.(\d+)\.(\d+)\.(\d+)$/, (_, a, b, c, d) => `${((+a << 8) | +b).toString(16)}:${((+c << 8) | +d).toString(16)}`);
  const [head = '', tail] = text.split('::');
  const groups = (part: string) => (part ? part.split(':') : []);
  const zeros = tail === undefined ? [] : Array<string>(8 - groups(head).length - groups(tail).length).fill('0');
  return [...groups(head), ...zeros, ...groups(tail ?? '')].reduce((n, g) => (n << 16n) | BigInt(parseInt(g, 16)), 0n);
}

/** Dotted quad, or RFC 5952 text: lower-case hex, the longest run of two or more zero groups as "::". */
function fromNumber(n: bigint, family: Family): string {
  const width = family === 'ipv4' ? 8 : 16;
  const count = BITS[family] / width;
  const parts = Array.from({ length: count }, (_, i) => (n >> BigInt((count - 1 - i) * width)) & ((1n << BigInt(width)) - 1n));
  if (family === 'ipv4') return parts.join('.');
  const hex = parts.map((p) => p.toString(16)).join(':');
  const longest = (hex.match(/(?:^|:)0(?::0)+(?::|$)/g) ?? []).reduce((a, b) => (b.length > a.length ? b : a), '');
  return longest ? hex.replace(longest, '::') : hex;
}

/**
 * Parses "1.2.3.4", "10.0.0.0/8", "2001:db8::/32" into the network address
 * (host bits cleared, canonical text) and prefix length, or throws.
 */
export function parseIpRule(rule: string): { ip: string; prefix: number; family: Family } {
  const parts = rule.trim().split('/');
  if (parts.length > 2) throw new IpRuleError(`"${rule}" is not an IP address or CIDR range`);
  const [rawIp = '', rawPrefix] = parts;
  const ip = normalizeIp(rawIp);
  const version = isIP(ip);
  // isIP accepts a zone ("fe80::1%eth0"), which means nothing in a rule for remote callers.
  if (version === 0 || ip.includes('%')) throw new IpRuleError(`"${rule}" is not an IP address or CIDR range`);
  const family = version === 4 ? 'ipv4' : 'ipv6';
  const max = BITS[family];
  const prefix = rawPrefix === undefined ? max : Number(rawPrefix);
  if (!/^\d+$/.test(rawPrefix ?? String(max)) || prefix < 0 || prefix > max) {
    throw new IpRuleError(`"${rule}" has an invalid prefix length (0-${max})`);
  }
  const hostBits = BigInt(max - prefix);
  return { ip: fromNumber((toNumber(ip, family) >> hostBits) << hostBits, family), prefix, family };
}

/** The form rules are stored in, so "10.0.0.5/8" and "10.0.0.0/8" are one rule. */
export function canonicalIpRule(rule: string): string {
  const { ip, prefix, family } = parseIpRule(rule);
  return prefix === BITS[family] ? ip : `${ip}/${prefix}`;
}

function buildBlockList(rules: readonly string[]): BlockList {
  const list = new BlockList();
  for (const rule of rules) {
    const { ip, prefix, family } = parseIpRule(rule);
    list.addSubnet(ip, prefix, family);
  }
  return list;
}

/** An empty list allows everyone; an unknown caller IP is refused by any non-empty list. */
export function ipAllowed(rules: readonly string[], ip: string | null): boolean {
  if (rules.length === 0) return true;
  if (!ip) return false;
  const normalized = normalizeIp(ip);
  const version = isIP(normalized);
  if (version === 0) return false;
  return buildBlockList(rules).check(normalized, version === 4 ? 'ipv4' : 'ipv6');
}

/**
 * The caller's address: the socket peer, unless that peer is a trusted proxy,
 * in which case X-Forwarded-For is walked from the right past trusted hops.
 */
export function clientIpFrom(peer: string | undefined, forwardedFor: string | undefined, trustedProxies: readonly string[]): string | null {
  if (!peer) return null;
  let ip = normalizeIp(peer);
  if (trustedProxies.length === 0) return ip;
  const hops = (forwardedFor ?? '').split(',').map((h) => h.trim()).filter(Boolean);
  while (ipAllowed(trustedProxies, ip) && hops.length > 0) {
    ip = normalizeIp(hops.pop() as string);
  }
  return ip;
}
