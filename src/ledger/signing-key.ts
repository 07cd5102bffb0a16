import { createHash, createPrivateKey, createPublicKey, generateKeyPairSync, randomBytes, sign, type KeyObject } from 'node:crypto';
import { access, link, mkdir, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { PublicKeyEntry, Signer } from './seal-signature.js';

/** Environment variable naming the private key file when `--signing-key` is not given. */
export const SIGNING_KEY_ENV = 'REDLINE_SIGNING_KEY';

/** The local key's file names in its directory; rotated public keys kept as `signing-key-*.pub` count too. */
const PRIVATE_FILE = 'signing-key.pem';
const PUBLIC_FILE = 'signing-key.pub';
const PUBLIC_PATTERN = /^signing-key.*\.pub$/;

/** A public key's id: the first 16 hex digits of the SHA-256 of its SPKI DER encoding. */
export function keyIdOf(key: KeyObject): string {
  const publicKey = key.type === 'private' ? createPublicKey(key) : key;
  return createHash('sha256')
    .update(publicKey.export({ type: 'spki', format: 'der' }))
    .digest('hex')
    .slice(0, 16);
}

function expectEd25519(key: KeyObject, where: string): KeyObject {
  if (key.asymmetricKeyType !== 'ed25519')
    throw new TypeError(`Expected an Ed25519 key${where}, got a ${key.asymmetricKeyType ?? 'symmetric'} key`);
  return key;
}

async function readPem(file: string, what: string): Promise<string> {
  try {
    return await readFile(file, 'utf8');
  } catch (error) {
    throw new TypeError(`Expected ${what} at ${file}, got ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`, {
      cause: error,
    });
  }
}

/** Reads an Ed25519 private key (PKCS#8 PEM); a clear `TypeError` when the file is missing or holds something else. */
export async function readPrivateKey(file: string): Promise<KeyObject> {
  const pem = await readPem(file, 'an Ed25519 private key (PEM)');
  try {
    return expectEd25519(createPrivateKey(pem), ` in ${file}`);
  } catch (error) {
    if (error instanceof TypeError && error.message.startsWith('Expected')) throw error;
    throw new TypeError(`Expected an Ed25519 private key (PEM) in ${file}, got something else (${(error as Error).message})`, {
      cause: error,
    });
  }
}

/** Reads a public key (SPKI PEM; the public half of a private key file works too). */
export async function readPublicKey(file: string): Promise<PublicKeyEntry> {
  const pem = await readPem(file, 'an Ed25519 public key (PEM)');
  let key: KeyObject;
  try {
    key = expectEd25519(createPublicKey(pem), ` in ${file}`);
  } catch (error) {
    if (error instanceof TypeError && error.message.startsWith('Expected')) throw error;
    throw new TypeError(`Expected an Ed25519 public key (PEM) in ${file}, got something else (${(error as Error).message})`, {
      cause: error,
    });
  }
  return { keyId: keyIdOf(key), key, source: file };
}

/**
 * Signs with an Ed25519 private key.
 * @example runMission({ mission, ledger, signer: keySigner(await readPrivateKey('key.pem')) })
 */
export function keySigner(privateKey: KeyObject): Signer {
  if (privateKey.type !== 'private') throw new TypeError(`Expected a private key to sign with, got a ${privateKey.type} key`);
  expectEd25519(privateKey, '');
  return { keyId: keyIdOf(privateKey), sign: (message) => sign(null, message, privateKey) };
}

/** A ledger as a command opens it: its location and the working directory a relative one is opened from. */
export interface KeyPlace {
  /** The ledger: a SQLite file (a relative path is opened from `cwd`, as `openLedger` does) or a URL. */
  readonly location: string;
  /** @default process.cwd() */
  readonly cwd?: string;
}

/**
 * Where the local key lives: with the ledger it signs for — next to a SQLite ledger file, resolved as the
 * ledger is opened (by default `.redline/` next to the mission), or for a ledger at a URL (PostgreSQL) in
 * `.redline/` of the working directory — whatever directory the mission is in.
 */
export function signingKeyDir({ location, cwd = process.cwd() }: KeyPlace): string {
  return location.includes('://') ? path.join(cwd, '.redline') : path.dirname(path.resolve(cwd, location));
}

/** Writes `text` to `file` whole: into a file aside, then renamed over it. */
async function writeWhole(file: string, text: string, mode: number): Promise<void> {
  const aside = `${file}.${process.pid}.${randomBytes(4).toString('hex')}`;
  await writeFile(aside, text, { mode, flag: 'wx' });
  await rename(aside, file);
}

/**
 * The key at `file`, created when there is none: written aside with mode 0600 and linked into place, so
 * a process starting at the same moment reads either no file or the whole key, and both use one key.
 */
async function loadOrCreate(file: string): Promise<{ key: KeyObject; created: boolean }> {
  const exists = await access(file).then(
    () => true,
    (error: NodeJS.ErrnoException) =>
      error.code === 'ENOENT'
        ? false
        : Promise.reject(new TypeError(`Expected a readable signing key at ${file}, got ${error.code ?? error.message}`)),
  );
  if (exists) return { key: await readPrivateKey(file), created: false };
  await mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
  const { privateKey } = generateKeyPairSync('ed25519');
  const aside = `${file}.${process.pid}.${randomBytes(4).toString('hex')}`;
  await writeFile(aside, privateKey.export({ type: 'pkcs8', format: 'pem' }), { mode: 0o600, flag: 'wx' });
  try {
    await link(aside, file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    return { key: await readPrivateKey(file), created: false };
  } finally {
    await rm(aside, { force: true });
  }
  return { key: privateKey, created: true };
}

/** The signer a command seals with, and where its key is (for messages). */
export interface OpenedSigner {
  readonly signer: Signer;
  readonly file: string;
  /** Whether this call created the key. */
  readonly created: boolean;
}

/**
 * The key `redline run` (and recovery) signs seals with: `explicit` (`--signing-key`), else
 * `$REDLINE_SIGNING_KEY`, else `signing-key.pem` in {@link signingKeyDir}, created there on first use
 * with its public key `signing-key.pub` beside it. A named key must exist; only the local one is created.
 */
export async function openSigner({ explicit, ...place }: KeyPlace & { readonly explicit?: string | undefined }): Promise<OpenedSigner> {
  const named = explicit ?? process.env[SIGNING_KEY_ENV];
  if (named !== undefined && named !== '') return { signer: keySigner(await readPrivateKey(named)), file: named, created: false };
  const dir = signingKeyDir(place);
  const file = path.join(dir, PRIVATE_FILE);
  const { key, created } = await loadOrCreate(file);
  const publicPem = createPublicKey(key).export({ type: 'spki', format: 'pem' }).toString();
  const publicFile = path.join(dir, PUBLIC_FILE);
  const current = await readFile(publicFile, 'utf8').catch(() => undefined);
  if (current !== publicPem) {
    // A new key after the old one was moved away (rotation): the old public key stays, as signing-key-<id>.pub, so its runs still verify.
    const previous = current === undefined ? undefined : await readPublicKey(publicFile).catch(() => undefined);
    if (previous !== undefined) await rename(publicFile, path.join(dir, `signing-key-${previous.keyId}.pub`));
    await writeWhole(publicFile, publicPem, 0o644);
  }
  return { signer: keySigner(key), file, created };
}

/**
 * The key a writer of the review queue signs its journal entries with (docs/review.md, 'Signed entries'):
 * the lookup of {@link openSigner} — `explicit`, else `$REDLINE_SIGNING_KEY`, else `signing-key.pem` in
 * {@link signingKeyDir} — except that the local key is never created: without one (no run has signed in
 * this ledger's key directory), entries are appended unsigned. A named key must exist.
 */
export async function findSigner({
  explicit,
  ...place
}: KeyPlace & { readonly explicit?: string | undefined }): Promise<Signer | undefined> {
  const named = explicit ?? process.env[SIGNING_KEY_ENV];
  if (named !== undefined && named !== '') return keySigner(await readPrivateKey(named));
  const file = path.join(signingKeyDir(place), PRIVATE_FILE);
  const found = await access(file).then(
    () => true,
    (error: NodeJS.ErrnoException) => (error.code === 'ENOENT' ? false : Promise.reject(error)),
  );
  return found ? keySigner(await readPrivateKey(file)) : undefined;
}

/**
 * The public keys `verify` and `show` use when none is given: every `signing-key*.pub` in
 * {@link signingKeyDir} (so a rotated key kept as `signing-key-2024.pub` still verifies its runs), and the
 * public half of `$REDLINE_SIGNING_KEY` when it is set. Reads only: nothing is created.
 */
export async function localPublicKeys(place: KeyPlace): Promise<{ keys: PublicKeyEntry[]; dir: string }> {
  const dir = signingKeyDir(place);
  const names = await readdir(dir).catch(() => [] as string[]);
  const keys = await Promise.all(
    names
      .filter((name) => PUBLIC_PATTERN.test(name))
      .sort()
      .map((name) => readPublicKey(path.join(dir, name))),
  );
  const named = process.env[SIGNING_KEY_ENV];
  if (named !== undefined && named !== '') {
    const key = await readPrivateKey(named);
    keys.push({ keyId: keyIdOf(key), key: createPublicKey(key), source: named });
  }
  return { keys, dir };
}
