import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { trustWalletLink, walletLink, walletUri } from '@/components/payment/walletUri';
import { NETWORKS, trustWalletAssets } from '@/lib/networks';

// The payment page's wallet links (issue 38, docs/payment-page.md "Open in wallet").
const ADDRESS = 'TQewygBXLpMmTFZ2UhrooEnnNp39B9A7mk';
const USDT = NETWORKS.mainnet.usdtContract;

describe('the payment page\'s wallet links', () => {
  it('Trust Wallet names Tron mainnet only: c195 for TRX, c195_t<contract> for a TRC-20 token', () => {
    assert.deepEqual(trustWalletAssets('mainnet', USDT), { TRX: 'c195', USDT: 'c195_tTR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t' });
    // The contract the service watches, not a fixed one (TRON_USDT_CONTRACT).
    assert.equal(trustWalletAssets('mainnet', 'TXYZopYRdj2D9XRtbG411XZZ3kM5VkAeBf')?.USDT, 'c195_tTXYZopYRdj2D9XRtbG411XZZ3kM5VkAeBf');
    // A test network's address is a mainnet address too: a link there would send real money to it.
    for (const network of ['devnet', 'nile', 'shasta'] as const) assert.equal(trustWalletAssets(network, NETWORKS[network].usdtContract), null, network);
  });

  it('the Trust Wallet link carries the token, the exact address and the exact amount', () => {
    const assets = trustWalletAssets('mainnet', USDT);
    const usdt = new URL(trustWalletLink(ADDRESS, 'USDT', '6.25', assets)!);
    assert.equal(`${usdt.origin}${usdt.pathname}`, 'https://link.trustwallet.com/send');
    assert.deepEqual(Object.fromEntries(usdt.searchParams), { asset: 'c195_tTR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t', address: ADDRESS, amount: '6.25' });
    assert.equal(trustWalletLink(ADDRESS, 'TRX', '40.000001', assets), `https://link.trustwallet.com/send?asset=c195&address=${ADDRESS}&amount=40.000001`);
  });

  it('no Trust Wallet link without an amount (a static address) or off mainnet', () => {
    assert.equal(trustWalletLink(ADDRESS, 'TRX', null, trustWalletAssets('mainnet', USDT)), null);
    assert.equal(trustWalletLink(ADDRESS, 'TRX', '40', null), null);
  });

  it('the tron: link is for TRX with an amount only, the same text as the QR code', () => {
    assert.equal(walletLink(ADDRESS, 'TRX', '40'), `tron:${ADDRESS}?amount=40`);
    assert.equal(walletLink(ADDRESS, 'TRX', '40'), walletUri(ADDRESS, 'TRX', '40'));
    assert.equal(walletLink(ADDRESS, 'USDT', '10'), null);
    assert.equal(walletLink(ADDRESS, 'TRX', null), null);
  });
});
