import { BlockList, isIP } from 'node:net';

export class IpRuleError extends Error {}

function normalizeIp(ip: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip);
  return mapped?.[1] ?? ip;
}

/** Parses "1.2.3.4", "10.0.0.0/8", "2001:db8::/32"; returns the canonical text or throws. */
export function parseIpRule(rule: string): { ip: string; prefix: number; family: 'ipv4' | 'ipv6' } {
  const [rawIp = '', rawPrefix] = rule.trim().split('/');
  const ip = normalizeIp(rawIp);
  const version = isIP(ip);
  if (version === 0) throw new IpRuleError(`"${rule}" is not an IP address or CIDR range`);
  const family = version === 4 ? 'ipv4' : 'ipv6';
  const max = version === 4 ? 32 : 128;
  const prefix = rawPrefix === undefined ? max : Number(rawPrefix);
  if (!/^\d+$/.test(rawPrefix ?? String(max)) || prefix < 0 || prefix > max) {
    throw new IpRuleError(`"${rule}" has an invalid prefix length (0-${max})`);
  }
  return { ip, prefix, family };
}

export function canonicalIpRule(rule: string): string {
  const { ip, prefix, family } = parseIpRule(rule);
  return prefix === (family === 'ipv4' ? 32 : 128) ? ip : `${ip}/${prefix}`;
}

export function buildBlockList(rules: readonly string[]): BlockList {
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
