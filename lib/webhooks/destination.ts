import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

/**
 * Which addresses a webhook may reach (SSRF): only globally routable unicast.
 * ipaddr.js classifies every IANA special-purpose block (private, loopback,
 * link-local, CGNAT, documentation, benchmarking, 192.0.0.0/24, multicast,
 * reserved...); anything it does not call `unicast` is refused. IPv6 forms that
 * carry an IPv4 address (IPv4-mapped and -translated, IPv4-compatible ::/96,
 * NAT64 64:ff9b::/96, 6to4 2002::/16, Teredo) are decoded and the IPv4 address
 * is judged instead, since a gateway may deliver them to it.
 */

/** The IPv4 address an IPv6 address stands for, if it embeds one. */
function embeddedIpv4(addr: ipaddr.IPv6): ipaddr.IPv4 | null {
  const p = addr.parts;
  const v4 = (hi: number, lo: number) => new ipaddr.IPv4([hi >> 8, hi & 0xff, lo >> 8, lo & 0xff]);
  switch (addr.range()) {
    case 'ipv4Mapped': // ::ffff:a.b.c.d
    case 'rfc6145': // ::ffff:0:a.b.c.d
    case 'rfc6052': // 64:ff9b::a.b.c.d (NAT64)
      return v4(p[6]!, p[7]!);
    case '6to4': // 2002:AABB:CCDD::/48
      return v4(p[1]!, p[2]!);
    case 'teredo': // 2001:0:server:flags:port:~client
      return v4(~p[6]! & 0xffff, ~p[7]! & 0xffff);
    default:
      // IPv4-compatible ::a.b.c.d (deprecated, still routed by some stacks); :: and ::1 are judged as IPv6.
      if (p.slice(0, 6).every((x) => x === 0) && (p[6] !== 0 || p[7]! > 1)) return v4(p[6]!, p[7]!);
      return null;
  }
}

// RFC 8215: 64:ff9b:1::/48 is for local NAT64 translators only; whatever it embeds, it is not global.
const LOCAL_NAT64 = ipaddr.parseCIDR('64:ff9b:1::/48');

export class DestinationRefusedError extends Error {}

/** True for anything that is not a globally routable unicast address (and for what is not an address). */
export function isPrivateAddress(ip: string): boolean {
  if (!ipaddr.isValid(ip)) return true;
  const addr = ipaddr.parse(ip);
  if (addr.kind() === 'ipv4') return addr.range() !== 'unicast';
  const v6 = addr as ipaddr.IPv6;
  if (v6.match(LOCAL_NAT64)) return true;
  const inner = embeddedIpv4(v6);
  if (inner) return inner.range() !== 'unicast';
  return v6.range() !== 'unicast';
}

/** Resolves the webhook host once and returns the address to connect to, or refuses it. */
export async function resolveDestination(url: URL, allowPrivate: boolean): Promise<{ address: string; family: 4 | 6 }> {
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new DestinationRefusedError(`unsupported scheme ${url.protocol}`);
  if (url.username || url.password) throw new DestinationRefusedError('credentials in the URL are not sent');
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const resolved = isIP(host) ? [{ address: host, family: isIP(host) as 4 | 6 }] : await lookup(host, { all: true });
  const first = resolved[0];
  if (!first) throw new DestinationRefusedError(`${host} does not resolve`);
  if (!allowPrivate) {
    const bad = resolved.find((r) => isPrivateAddress(r.address));
    if (bad) throw new DestinationRefusedError(`${host} resolves to the non-public address ${bad.address}`);
  }
  return { address: first.address, family: first.family as 4 | 6 };
}
