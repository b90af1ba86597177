/**
 * Which IP addresses a request to a tenant-supplied URL may reach. A tenant who
 * can make the service call "their" platform URL must not be able to aim it at
 * the service's own network: loopback, private ranges, link-local (the cloud
 * metadata endpoint 169.254.169.254 lives there), CGNAT, unspecified, multicast
 * and broadcast addresses are refused.
 *
 * IPv6 forms that carry an IPv4 address (IPv4-mapped ::ffff:0:0/96, the NAT64
 * prefix 64:ff9b::/96, the deprecated IPv4-compatible ::/96 and 6to4 2002::/16)
 * are judged by the IPv4 address they carry, because that is where a packet can end up.
 */
import { BlockList, isIP } from 'node:net';

interface ForbiddenRange {
  network: string;
  prefix: number;
  label: string;
}

const FORBIDDEN_IPV4: readonly ForbiddenRange[] = [
  { network: '0.0.0.0', prefix: 8, label: 'unspecified ("this network")' },
  { network: '10.0.0.0', prefix: 8, label: 'private' },
  { network: '100.64.0.0', prefix: 10, label: 'carrier-grade NAT' },
  { network: '127.0.0.0', prefix: 8, label: 'loopback' },
  { network: '169.254.0.0', prefix: 16, label: 'link-local' },
  { network: '172.16.0.0', prefix: 12, label: 'private' },
  { network: '192.168.0.0', prefix: 16, label: 'private' },
  { network: '224.0.0.0', prefix: 4, label: 'multicast' },
  // Reserved "future use" space, which includes the limited broadcast address 255.255.255.255.
  { network: '240.0.0.0', prefix: 4, label: 'reserved or broadcast' },
];

const FORBIDDEN_IPV6: readonly ForbiddenRange[] = [
  { network: '::', prefix: 128, label: 'unspecified' },
  { network: '::1', prefix: 128, label: 'loopback' },
  { network: 'fc00::', prefix: 7, label: 'unique local (private)' },
  { network: 'fe80::', prefix: 10, label: 'link-local' },
  // Deprecated site-local: still private wherever it is routed at all.
  { network: 'fec0::', prefix: 10, label: 'site-local (private)' },
  { network: 'ff00::', prefix: 8, label: 'multicast' },
];

function ipv4Octets(address: string): number[] {
  return address.split('.').map(Number);
}

function hex16(high: number, low: number): string {
  return ((high << 8) | low).toString(16);
}

/**
 * IPv6 subnets that embed a forbidden IPv4 subnet. IPv4-mapped addresses need no
 * entry: BlockList already checks ::ffff:a.b.c.d against the IPv4 rules.
 */
function embeddingSubnets(range: ForbiddenRange): ForbiddenRange[] {
  const [a, b, c, d] = ipv4Octets(range.network);
  const tail = `${hex16(a, b)}:${hex16(c, d)}`;
  return [
    { network: `64:ff9b::${tail}`, prefix: 96 + range.prefix, label: `${range.label}, behind NAT64` },
    { network: `::${tail}`, prefix: 96 + range.prefix, label: `${range.label}, IPv4-compatible form` },
    { network: `2002:${tail}::`, prefix: 16 + range.prefix, label: `${range.label}, behind 6to4` },
  ];
}

interface LabelledList {
  list: BlockList;
  label: string;
  family: 'ipv4' | 'ipv6';
}

// One BlockList per range so a refusal can say which kind of address it was.
const RULES: readonly LabelledList[] = [
  ...FORBIDDEN_IPV4.map((range) => rule(range, 'ipv4')),
  ...FORBIDDEN_IPV6.map((range) => rule(range, 'ipv6')),
  ...FORBIDDEN_IPV4.flatMap(embeddingSubnets).map((range) => rule(range, 'ipv6')),
];

function rule(range: ForbiddenRange, family: 'ipv4' | 'ipv6'): LabelledList {
  const list = new BlockList();
  list.addSubnet(range.network, range.prefix, family);
  return { list, label: `${range.label} (${range.network}/${range.prefix})`, family };
}

/** Drops an IPv6 zone id ("fe80::1%eth0"), which BlockList does not understand. */
function withoutZone(address: string): string {
  const percent = address.indexOf('%');
  return percent === -1 ? address : address.slice(0, percent);
}

/**
 * Why an address may not be reached, or undefined when it may.
 * Anything that is not an IP address is refused: only checked addresses are connected to.
 */
export function forbiddenAddressReason(address: string): string | undefined {
  const bare = withoutZone(address.replace(/^\[|\]$/g, ''));
  const version = isIP(bare);
  if (version === 0) return 'not an IP address';
  const family = version === 4 ? 'ipv4' : 'ipv6';
  // A mapped address (::ffff:a.b.c.d) matches IPv4 rules when checked as ipv6.
  const hit = RULES.find((candidate) => (family === 'ipv4' ? candidate.family === 'ipv4' : true) && candidate.list.check(bare, family));
  return hit?.label;
}

export function isForbiddenAddress(address: string): boolean {
  return forbiddenAddressReason(address) !== undefined;
}
