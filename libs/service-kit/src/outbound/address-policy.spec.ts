import { describe, expect, it } from '@jest/globals';
import { forbiddenAddressReason, isForbiddenAddress } from './address-policy.js';
import { checkOutboundUrl, checkOutboundUrlSyntax, type HostResolver } from './outbound-url.js';

const refused: Array<[string, string]> = [
  ['127.0.0.1', 'loopback'],
  ['127.255.255.254', 'loopback'],
  ['10.1.2.3', 'private'],
  ['172.16.0.1', 'private'],
  ['172.31.255.255', 'private'],
  ['192.168.1.1', 'private'],
  ['169.254.169.254', 'link-local'],
  ['169.254.0.1', 'link-local'],
  ['0.0.0.0', 'unspecified'],
  ['100.64.0.1', 'carrier-grade NAT'],
  ['100.127.255.255', 'carrier-grade NAT'],
  ['224.0.0.1', 'multicast'],
  ['239.255.255.250', 'multicast'],
  ['255.255.255.255', 'broadcast'],
  ['::1', 'loopback'],
  ['::', 'unspecified'],
  ['fc00::1', 'unique local'],
  ['fd12:3456:789a::1', 'unique local'],
  ['fe80::1', 'link-local'],
  ['fe80::1%eth0', 'link-local'],
  ['ff02::1', 'multicast'],
  ['::ffff:127.0.0.1', 'loopback'],
  ['::ffff:7f00:1', 'loopback'],
  ['::ffff:10.0.0.1', 'private'],
  ['::ffff:169.254.169.254', 'link-local'],
  ['::ffff:192.168.0.1', 'private'],
  ['::ffff:0.0.0.0', 'unspecified'],
  ['64:ff9b::127.0.0.1', 'NAT64'],
  ['::127.0.0.1', 'IPv4-compatible'],
  ['2002:a9fe:a9fe::1', '6to4'],
];

const allowed = ['8.8.8.8', '1.1.1.1', '172.32.0.1', '172.15.255.255', '100.128.0.1', '192.169.0.1', '2606:4700:4700::1111', '::ffff:8.8.8.8', '64:ff9b::808:808'];

describe('forbiddenAddressReason', () => {
  it.each(refused)('refuses %s (%s)', (address, label) => {
    expect(forbiddenAddressReason(address)).toContain(label);
  });

  it.each(allowed)('allows %s', (address) => {
    expect(isForbiddenAddress(address)).toBe(false);
  });

  it('refuses anything that is not an IP address', () => {
    expect(forbiddenAddressReason('example.com')).toBe('not an IP address');
  });
});

describe('checkOutboundUrlSyntax', () => {
  it.each([
    ['not a url', 'absolute'],
    ['/v2/agents', 'absolute'],
    ['ftp://platform.example/', 'http or https'],
    ['file:///etc/passwd', 'http or https'],
    ['https://user:secret@platform.example/', 'user name or password'],
  ])('refuses %s as an invalid URL', (url, problem) => {
    const check = checkOutboundUrlSyntax(url);
    expect(check).toMatchObject({ ok: false, kind: 'invalid_url' });
    expect(!check.ok && check.problem).toContain(problem);
  });

  it.each([
    'http://127.0.0.1:8080/',
    'http://[::1]/',
    'http://[::ffff:127.0.0.1]/',
    'http://[::ffff:a9fe:a9fe]/latest/meta-data',
    'http://169.254.169.254/latest/meta-data',
    // The URL parser reads these as 127.0.0.1.
    'http://2130706433/',
    'http://0x7f.1/',
    'http://localhost:3000/',
    'http://api.localhost/',
    'http://LOCALHOST./',
  ])('refuses %s before any DNS', (url) => {
    expect(checkOutboundUrlSyntax(url)).toMatchObject({ ok: false, kind: 'forbidden_address' });
  });

  it('lets everything well-formed through when private addresses are allowed', () => {
    expect(checkOutboundUrlSyntax('http://127.0.0.1:8080/', { allowPrivate: true })).toMatchObject({ ok: true });
    expect(checkOutboundUrlSyntax('ftp://127.0.0.1/', { allowPrivate: true })).toMatchObject({ ok: false, kind: 'invalid_url' });
  });
});

describe('checkOutboundUrl (after DNS)', () => {
  const resolvingTo =
    (...addresses: string[]): HostResolver =>
    async () =>
      addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));

  it.each(['10.0.0.5', '::ffff:192.168.1.1', 'fd00::5', '169.254.169.254', '100.100.100.200'])('refuses a name resolving to %s', async (address) => {
    const check = await checkOutboundUrl('https://platform.example/', {}, resolvingTo(address));
    expect(check).toMatchObject({ ok: false, kind: 'forbidden_address' });
    expect(!check.ok && check.problem).toContain(address);
  });

  it('refuses a name when any one of its addresses is internal', async () => {
    expect(await checkOutboundUrl('https://platform.example/', {}, resolvingTo('8.8.8.8', '127.0.0.1'))).toMatchObject({ ok: false, kind: 'forbidden_address' });
  });

  it('accepts a name resolving to public addresses only, and says which', async () => {
    const check = await checkOutboundUrl('https://platform.example/v1', {}, resolvingTo('8.8.8.8', '2606:4700:4700::1111'));
    expect(check).toMatchObject({ ok: true, addresses: [{ address: '8.8.8.8' }, { address: '2606:4700:4700::1111' }] });
  });

  it('reports a name that does not resolve', async () => {
    const failing: HostResolver = async () => {
      throw Object.assign(new Error('queryA ENOTFOUND'), { code: 'ENOTFOUND' });
    };
    expect(await checkOutboundUrl('https://nowhere.example/', {}, failing)).toMatchObject({ ok: false, kind: 'unresolvable' });
  });

  it('allows internal addresses with allowPrivate', async () => {
    expect(await checkOutboundUrl('https://platform.internal/', { allowPrivate: true }, resolvingTo('10.0.0.5'))).toMatchObject({ ok: true });
  });
});
