import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { test } from 'node:test';
import { TronWeb } from 'tronweb';
import { base58Address } from '@/lib/chain/address';

test('base58Address writes every hex address as tronweb does', () => {
  const samples = ['41' + '0'.repeat(40), '41' + 'f'.repeat(40), '41a614f803b6fd780986a42c78ec9c7f77e6ded13c', ...Array.from({ length: 2000 }, () => '41' + randomBytes(20).toString('hex'))];
  for (const hex of samples) {
    assert.equal(base58Address(hex), TronWeb.address.fromHex(hex), hex);
    assert.equal(base58Address(hex.toUpperCase().replace(/^41/, '41')), TronWeb.address.fromHex(hex), `${hex} in capitals`);
  }
  // The USDT contract, as every explorer writes it.
  assert.equal(base58Address('41a614f803b6fd780986a42c78ec9c7f77e6ded13c'), 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t');
});

test('base58Address leaves what is not a 41-prefixed hex address to tronweb', () => {
  const base58 = 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t';
  assert.equal(base58Address(base58), TronWeb.address.fromHex(base58));
});
