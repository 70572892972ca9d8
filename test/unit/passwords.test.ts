import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import bcrypt from 'bcryptjs';
import { DUMMY_HASH, dummyHash, hashPassword, verifyPassword } from '@/lib/auth/passwords';

describe('password checks', () => {
  it('an unknown e-mail is checked against a hash as costly as a real one, so timing does not tell which e-mails have accounts', async () => {
    assert.equal(bcrypt.getRounds(DUMMY_HASH), 12, 'the written-out dummy is the default cost');
    // The default cost (12) and the tests' (4): a missing hash is checked at the cost new hashes are made with.
    for (const cost of [12, 4]) {
      assert.equal(bcrypt.getRounds(await dummyHash(cost)), bcrypt.getRounds(await hashPassword('correct horse battery staple', cost)), `cost ${cost}`);
      assert.equal(await verifyPassword('not-a-real-password', null, cost), false, 'no password matches a missing hash');
    }
    assert.equal(await dummyHash(4), await dummyHash(4), 'made once a process');
  });

  it('accepts the password a hash was made from and refuses another, whatever cost it was made at', async () => {
    for (const cost of [4, 12]) {
      const hash = await hashPassword('correct horse battery staple', cost);
      assert.equal(await verifyPassword('correct horse battery staple', hash), true);
      assert.equal(await verifyPassword('correct horse battery stable', hash), false);
    }
  });
});
