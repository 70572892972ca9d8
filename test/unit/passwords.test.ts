import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import bcrypt from 'bcryptjs';
import { DUMMY_HASH, hashPassword, verifyPassword } from '@/lib/auth/passwords';

describe('password checks', () => {
  it('an unknown e-mail is checked against a hash as costly as a real one, so timing does not tell which e-mails have accounts', async () => {
    assert.equal(bcrypt.getRounds(DUMMY_HASH), bcrypt.getRounds(await hashPassword('correct horse battery staple')));
    assert.equal(await verifyPassword('not-a-real-password', null), false, 'no password matches a missing hash');
  });

  it('accepts the password a hash was made from and refuses another', async () => {
    const hash = await hashPassword('correct horse battery staple');
    assert.equal(await verifyPassword('correct horse battery staple', hash), true);
    assert.equal(await verifyPassword('correct horse battery stable', hash), false);
  });
});
