import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, it } from 'node:test';
import { generateApiKey, hashApiKey, keyFromAuthorizationHeader } from '@/lib/auth/apiKeys';
import { canonicalIpRule, clientIpFrom, ipAllowed, IpRuleError } from '@/lib/ipAllowList';
import { keyRingFrom, needsReseal, open, seal } from '@/lib/crypto/secretBox';
import { parseConfig } from '@/lib/config';

describe('secret box', () => {
  const oldKey = randomBytes(32).toString('hex');
  const newKey = randomBytes(32).toString('hex');

  it('round-trips and never stores the plaintext', () => {
    const ring = keyRingFrom(oldKey);
    const sealed = seal(ring, 'private-key-hex');
    assert.ok(!sealed.includes('private-key-hex'));
    assert.equal(open(ring, sealed), 'private-key-hex');
    assert.notEqual(seal(ring, 'x'), seal(ring, 'x'), 'fresh IV each time');
  });

  it('detects tampering', () => {
    const ring = keyRingFrom(oldKey);
    const parts = seal(ring, 'secret').split('.');
    parts[4] = Buffer.from('tampered').toString('base64url');
    assert.throws(() => open(ring, parts.join('.')));
  });

  it('reads old ciphertexts during a rotation and says which need re-sealing', () => {
    const sealedOld = seal(keyRingFrom(oldKey), 'secret');
    const rotated = keyRingFrom(newKey, oldKey);
    assert.equal(open(rotated, sealedOld), 'secret');
    assert.ok(needsReseal(rotated, sealedOld));
    assert.ok(!needsReseal(rotated, seal(rotated, 'secret')));
    assert.throws(() => open(keyRingFrom(newKey), sealedOld), /MASTER_KEYS_PREVIOUS/);
  });
});

describe('API keys', () => {
  it('generates unguessable keys kept only as hashes', () => {
    const a = generateApiKey();
    assert.match(a.key, /^tk_[A-Za-z0-9_-]{43}$/);
    assert.equal(a.keyHash, hashApiKey(a.key));
    assert.equal(a.prefix, a.key.slice(0, 10));
    assert.notEqual(a.key, generateApiKey().key);
  });

  it('reads the bare key and common schemes from Authorization', () => {
    assert.equal(keyFromAuthorizationHeader(null), null);
    assert.equal(keyFromAuthorizationHeader('   '), null);
    assert.equal(keyFromAuthorizationHeader('abc'), 'abc');
    assert.equal(keyFromAuthorizationHeader('Bearer abc'), 'abc');
    assert.equal(keyFromAuthorizationHeader('api-key abc'), 'abc');
    assert.equal(keyFromAuthorizationHeader('Basic a b'), '');
  });
});

describe('IP allow list', () => {
  it('matches single IPs, v4 and v6 CIDR ranges and mapped addresses', () => {
    const rules = ['10.0.0.0/8', '192.168.1.5', '2001:db8::/32'];
    assert.ok(ipAllowed(rules, '10.200.1.1'));
    assert.ok(ipAllowed(rules, '::ffff:192.168.1.5'));
    assert.ok(ipAllowed(rules, '2001:db8::1'));
    assert.ok(!ipAllowed(rules, '192.168.1.6'));
    assert.ok(!ipAllowed(rules, null));
    assert.ok(ipAllowed([], null), 'empty list allows all');
  });

  it('canonicalises and refuses malformed rules', () => {
    assert.equal(canonicalIpRule(' 10.0.0.1/32 '), '10.0.0.1');
    assert.equal(canonicalIpRule('10.0.0.0/8'), '10.0.0.0/8');
    for (const bad of ['10.0.0.256', '10.0.0.0/33', 'example.com', '10.0.0.0/x', '', '1.2.3.4/8/junk', '1.2.3.4//8', '10.0.0.0/8/', 'fe80::1%eth0']) {
      assert.throws(() => canonicalIpRule(bad), IpRuleError, bad);
    }
  });

  it('stores a range by its network address, so one range has one form', () => {
    const same: [string, string][] = [
      ['10.0.0.5/8', '10.0.0.0/8'],
      ['192.168.1.255/23', '192.168.0.0/23'],
      ['1.2.3.4/0', '0.0.0.0/0'],
      ['2001:DB8:0:0:0:0:0:1', '2001:db8::1'],
      ['2001:db8:abcd:12::7/48', '2001:db8:abcd::/48'],
      ['2001:db8::ffff/127', '2001:db8::fffe/127'],
      ['1:0:0:2:0:0:0:3', '1:0:0:2::3'],
      ['64:ff9b::1.2.3.4/96', '64:ff9b::/96'],
      ['::ffff:10.1.2.3', '10.1.2.3'],
      ['0:0:0:0:0:0:0:0/128', '::'],
    ];
    for (const [rule, canonical] of same) {
      assert.equal(canonicalIpRule(rule), canonical, rule);
      assert.equal(canonicalIpRule(canonical), canonical, `${canonical} is stable`);
    }
    // The stored form allows the same addresses as the rule as typed.
    const v4 = [canonicalIpRule('10.0.0.5/8')];
    assert.ok(ipAllowed(v4, '10.255.0.1') && ipAllowed(v4, '10.0.0.0') && !ipAllowed(v4, '11.0.0.0'));
    const v6 = [canonicalIpRule('2001:db8::ffff/127')];
    assert.ok(ipAllowed(v6, '2001:db8::fffe') && ipAllowed(v6, '2001:db8::ffff') && !ipAllowed(v6, '2001:db8::1:0'));
  });

  it('walks X-Forwarded-For only past trusted proxies', () => {
    assert.equal(clientIpFrom('127.0.0.1', '1.2.3.4', []), '127.0.0.1');
    assert.equal(clientIpFrom('127.0.0.1', '9.9.9.9, 1.2.3.4', ['127.0.0.1']), '1.2.3.4');
    assert.equal(clientIpFrom('127.0.0.1', '9.9.9.9, 10.0.0.2', ['127.0.0.1', '10.0.0.0/8']), '9.9.9.9');
    assert.equal(clientIpFrom('8.8.8.8', '1.2.3.4', ['127.0.0.1']), '8.8.8.8');
  });
});

describe('configuration', () => {
  const good = { DATABASE_URL: 'postgres://x@y/z', MASTER_KEY: 'a'.repeat(64), HD_MNEMONIC: 'test test test test test test test test test test test junk' };

  it('applies defaults', () => {
    const c = parseConfig(good);
    assert.equal(c.PORT, 3000);
    assert.equal(c.RATES_PROVIDER, 'fixed');
  });

  it('names every bad variable in one message', () => {
    assert.throws(
      () => parseConfig({ ...good, MASTER_KEY: 'short', PORT: 'eighty', FORWARDING_FEE_PERCENT: '-1', DATABASE_URL: 'mysql://x' }),
      (err: Error) => ['MASTER_KEY', 'PORT', 'FORWARDING_FEE_PERCENT', 'DATABASE_URL'].every((v) => err.message.includes(v)),
    );
  });

  it('refuses at start-up values the money and proxy code could not use later', () => {
    for (const [name, value] of [
      ['RATES_FIXED_TRX_USD', '0'], ['RATES_FIXED_USDT_USD', '1.0000000000001'], ['FORWARDING_FEE_PERCENT', '0.12345'],
      ['TOPUP_FEE_PERCENT', 'one'], ['TRUSTED_PROXIES', '10.0.0.1, nginx'], ['TRUSTED_PROXIES', '10.0.0.0/33'], ['DEMO_API_KEY', 'tk_demo with a space inside'],
    ] as const) {
      assert.throws(() => parseConfig({ ...good, [name]: value }), (err: Error) => err.message.includes(name), `${name}=${value}`);
    }
    const c = parseConfig({ ...good, TRUSTED_PROXIES: ' 10.0.0.1, 2001:db8::/32 ', RATES_FIXED_TRX_USD: '0.000000000001', FORWARDING_FEE_PERCENT: '0.1234' });
    assert.deepEqual(c.TRUSTED_PROXIES, ['10.0.0.1', '2001:db8::/32']);
  });
});
