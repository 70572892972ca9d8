import { lookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';

// Addresses a webhook must not reach unless explicitly allowed: the service's own
// network (SSRF). The check is on the resolved IP, and that IP is the one connected to.
const forbidden = new BlockList();
for (const [net, prefix] of [['0.0.0.0', 8], ['10.0.0.0', 8], ['100.64.0.0', 10], ['127.0.0.0', 8], ['169.254.0.0', 16], ['172.16.0.0', 12], ['192.168.0.0', 16], ['198.18.0.0', 15], ['224.0.0.0', 4], ['240.0.0.0', 4]] as const) {
  forbidden.addSubnet(net, prefix, 'ipv4');
}
for (const [net, prefix] of [['::', 128], ['::1', 128], ['fc00::', 7], ['fe80::', 10], ['ff00::', 8]] as const) {
  forbidden.addSubnet(net, prefix, 'ipv6');
}

export class DestinationRefusedError extends Error {}

export function isPrivateAddress(ip: string): boolean {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip)?.[1];
  const addr = mapped ?? ip;
  return forbidden.check(addr, isIP(addr) === 6 ? 'ipv6' : 'ipv4');
}

/** Resolves the webhook host once and returns the address to connect to, or refuses it. */
export async function resolveDestination(url: URL, allowPrivate: boolean): Promise<{ address: string; family: 4 | 6 }> {
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new DestinationRefusedError(`unsupported scheme ${url.protocol}`);
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const resolved = isIP(host) ? [{ address: host, family: isIP(host) as 4 | 6 }] : await lookup(host, { all: true });
  const first = resolved[0];
  if (!first) throw new DestinationRefusedError(`${host} does not resolve`);
  if (!allowPrivate) {
    const bad = resolved.find((r) => isPrivateAddress(r.address));
    if (bad) throw new DestinationRefusedError(`${host} resolves to the private address ${bad.address}`);
  }
  return { address: first.address, family: first.family as 4 | 6 };
}
