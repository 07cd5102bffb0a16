import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readdir, readFile, rename, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, it } from 'node:test';
import { keyIdOf, localPublicKeys, openSigner, readPublicKey, SIGNING_KEY_ENV, signingKeyDir } from '../../src/ledger/signing-key.js';
import { tempWorkspace } from '../helpers/workspace.js';

describe('signing keys', () => {
  it('creates the local key next to the SQLite ledger on first use, mode 0600, with its public key, once even when opened at once', async () => {
    const dir = await tempWorkspace({});
    const location = path.join(dir, '.redline', 'redline.db');
    const opened = await Promise.all(Array.from({ length: 4 }, () => openSigner({ location, cwd: dir })));
    assert.equal(opened.filter((item) => item.created).length, 1);
    assert.equal(new Set(opened.map((item) => item.signer.keyId)).size, 1);
    const file = path.join(dir, '.redline', 'signing-key.pem');
    assert.equal(opened[0]?.file, file);
    assert.equal((await stat(file)).mode & 0o777, 0o600);
    assert.deepEqual(
      (await readdir(path.join(dir, '.redline'))).sort(),
      ['signing-key.pem', 'signing-key.pub'],
      'no file written aside is left',
    );
    const publicKey = await readPublicKey(path.join(dir, '.redline', 'signing-key.pub'));
    assert.equal(publicKey.keyId, opened[0]?.signer.keyId);
    const again = await openSigner({ location, cwd: dir });
    assert.deepEqual([again.created, again.signer.keyId], [false, publicKey.keyId]);
  });

  it('puts the key with the ledger as it is opened: a relative SQLite path and a PostgreSQL .redline/ from the working directory', () => {
    assert.equal(signingKeyDir({ location: 'postgres://u@h/db', cwd: '/work/m' }), '/work/m/.redline');
    assert.equal(signingKeyDir({ location: 'l.db', cwd: '/work/m' }), '/work/m');
    assert.equal(signingKeyDir({ location: 'ledgers/l.db' }), path.join(process.cwd(), 'ledgers'));
    assert.equal(signingKeyDir({ location: '/srv/l.db', cwd: '/work/m' }), '/srv');
  });

  it('uses a named key as it is and refuses a missing or non-Ed25519 one with a clear error, creating nothing', async () => {
    const dir = await tempWorkspace({});
    const location = path.join(dir, 'l.db');
    const { privateKey } = generateKeyPairSync('ed25519');
    await writeFile(path.join(dir, 'mine.pem'), privateKey.export({ type: 'pkcs8', format: 'pem' }), { mode: 0o600 });
    const named = await openSigner({ explicit: path.join(dir, 'mine.pem'), location, cwd: dir });
    assert.equal(named.signer.keyId, keyIdOf(privateKey));
    await assert.rejects(
      openSigner({ explicit: path.join(dir, 'missing.pem'), location, cwd: dir }),
      (error: Error) =>
        error instanceof TypeError && /^Expected an Ed25519 private key \(PEM\) at .*missing\.pem, got ENOENT$/.test(error.message),
    );
    const rsa = generateKeyPairSync('rsa', { modulusLength: 1024 }).privateKey;
    await writeFile(path.join(dir, 'rsa.pem'), rsa.export({ type: 'pkcs8', format: 'pem' }));
    await assert.rejects(
      openSigner({ explicit: path.join(dir, 'rsa.pem'), location, cwd: dir }),
      /^TypeError: Expected an Ed25519 key in .*rsa\.pem, got a rsa key$/,
    );
    await writeFile(path.join(dir, 'junk.pem'), 'not a key');
    await assert.rejects(
      openSigner({ explicit: path.join(dir, 'junk.pem'), location, cwd: dir }),
      /^TypeError: Expected an Ed25519 private key \(PEM\) in .*junk\.pem, got something else/,
    );
    assert.equal(existsSync(path.join(dir, 'signing-key.pem')), false);

    process.env[SIGNING_KEY_ENV] = path.join(dir, 'mine.pem');
    try {
      assert.equal((await openSigner({ location, cwd: dir })).signer.keyId, keyIdOf(privateKey));
      assert.deepEqual(
        (await localPublicKeys({ location, cwd: dir })).keys.map((key) => key.keyId),
        [keyIdOf(privateKey)],
      );
    } finally {
      delete process.env[SIGNING_KEY_ENV];
    }
  });

  it('finds every signing-key*.pub beside the ledger, and keeps the old public key when the private key is rotated away', async () => {
    const dir = await tempWorkspace({});
    const location = path.join(dir, 'keys', 'l.db');
    const first = await openSigner({ location, cwd: dir });
    await rename(path.join(dir, 'keys', 'signing-key.pem'), path.join(dir, 'old.pem'));
    const second = await openSigner({ location, cwd: dir });
    assert.equal(second.created, true);
    await writeFile(
      path.join(dir, 'keys', 'signing-key-2023.pub'),
      await readFile(path.join(dir, 'keys', `signing-key-${first.signer.keyId}.pub`)),
    );
    const { keys } = await localPublicKeys({ location, cwd: dir });
    assert.deepEqual(
      keys.map((key) => [path.basename(key.source), key.keyId]),
      // In file-name order; where the rotated key's file sorts depends on its (random) key id.
      [
        ['signing-key-2023.pub', first.signer.keyId],
        [`signing-key-${first.signer.keyId}.pub`, first.signer.keyId],
        ['signing-key.pub', second.signer.keyId],
      ].sort(([a], [b]) => ((a as string) < (b as string) ? -1 : 1)),
    );
    const none = await localPublicKeys({ location: path.join(dir, 'nowhere', 'l.db'), cwd: dir });
    assert.deepEqual(none.keys, []);
    assert.equal(existsSync(path.join(dir, 'nowhere')), false);
  });
});
