import { execFile } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { loadConfig } from '../../src/config';
import { isSealed, newSecretKey, parseSecretKey, parseSecretKeys, sealedKeyId, secretBox } from '../../src/platform/secret-box';
import { SECRETS_KEY_FILE, webhookSecrets } from '../../src/runtime/secrets-key';

const SECRET = `whsec_${crypto.randomBytes(32).toString('base64')}`;

describe('sealed secrets (webhook signing secrets at rest)', () => {
  const box = secretBox(crypto.randomBytes(32));

  it('seals a secret so that the stored value does not carry it, and opens it again', () => {
    const sealed = box.seal(SECRET);
    expect(isSealed(sealed)).toBe(true);
    expect(sealedKeyId(sealed)).toBe(box.keyId);
    expect(sealed).not.toContain(SECRET.slice('whsec_'.length, 20));
    expect(box.open(sealed)).toBe(SECRET);
    // A fresh nonce each time: the same secret sealed twice is two different values.
    expect(box.seal(SECRET)).not.toBe(sealed);
  });

  it('refuses a value stored in the clear', () => {
    expect(isSealed(SECRET)).toBe(false);
    expect(() => box.open(SECRET)).toThrow(/a secret stored in the clear is refused/);
    expect(() => box.open(SECRET, 'webhook-endpoint:1')).toThrow(/a secret stored in the clear is refused/);
  });

  it('seals for an owner: the value opens for that owner only, and not as one sealed for none', () => {
    const sealed = box.seal(SECRET, 'webhook-endpoint:1');
    expect(isSealed(sealed)).toBe(true);
    expect(sealed).toMatch(new RegExp(`^sealed:v2:${box.keyId}:`));
    expect(sealedKeyId(sealed)).toBe(box.keyId);
    expect(box.open(sealed, 'webhook-endpoint:1')).toBe(SECRET);
    expect(() => box.open(sealed, 'webhook-endpoint:2')).toThrow(/failed its integrity check: .*sealed for another owner than webhook-endpoint:2/);
    expect(() => box.open(sealed)).toThrow(/sealed for an owner is opened only for it/);
    // A value sealed for none is not taken where an owner is expected, even relabelled as bound.
    const unbound = box.seal(SECRET);
    expect(() => box.open(unbound, 'webhook-endpoint:1')).toThrow(/sealed for no owner is refused/);
    expect(() => box.open(unbound.replace('sealed:v1:', 'sealed:v2:'), 'webhook-endpoint:1')).toThrow(/failed its integrity check/);
  });

  it('refuses a value altered in the database, saying so', () => {
    const sealed = box.seal(SECRET);
    const body = sealed.slice(sealed.lastIndexOf(':') + 1);
    const raw = Buffer.from(body, 'base64url');
    raw[raw.length - 1]! ^= 1;
    expect(() => box.open(sealed.replace(body, raw.toString('base64url')))).toThrow(/failed its integrity check/);
    expect(() => box.open(sealed.slice(0, sealed.lastIndexOf(':') + 4))).toThrow(/too short/);
  });

  it('names both keys when a process has another key than the one a secret was sealed under', () => {
    const other = secretBox(crypto.randomBytes(32));
    expect(() => other.open(box.seal(SECRET))).toThrow(
      new RegExp(`sealed under key ${box.keyId}, but this process has key ${other.keyId}: every API and worker process needs the same WEBHOOK_SECRETS_KEY`),
    );
    // The key id is authenticated: a value relabelled as the other key's fails its check.
    expect(() => other.open(box.seal(SECRET).replace(box.keyId, other.keyId))).toThrow(/failed its integrity check/);
  });

  it('while the key is changed: opens what the previous key sealed, seals only under the new one', () => {
    const oldKey = crypto.randomBytes(32);
    const sealedBefore = secretBox(oldKey).seal(SECRET);
    const changing = secretBox(crypto.randomBytes(32), [oldKey]);
    expect(changing.keyId).not.toBe(sealedKeyId(sealedBefore));
    expect(changing.opens(sealedKeyId(sealedBefore)!)).toBe(true);
    expect(changing.opens(changing.keyId)).toBe(true);
    expect(changing.open(sealedBefore)).toBe(SECRET);
    const sealedNow = changing.seal(SECRET);
    expect(sealedKeyId(sealedNow)).toBe(changing.keyId);
    expect(changing.open(sealedNow)).toBe(SECRET);
    // The old key alone cannot open what the new one sealed; a box without the old key says where it goes.
    expect(() => secretBox(oldKey).open(sealedNow)).toThrow(/sealed under key/);
    expect(() => box.open(sealedBefore)).toThrow(/WEBHOOK_SECRETS_PREVIOUS_KEYS/);
    expect(box.opens(sealedKeyId(sealedBefore)!)).toBe(false);
  });

  it('takes previous keys comma-separated, and refuses the setting at start-up unless every one is a key', () => {
    const [a, b] = [crypto.randomBytes(32), crypto.randomBytes(32)];
    expect(parseSecretKeys(`${a.toString('base64')}, ${b.toString('base64url')},`)).toEqual([a, b]);
    expect(parseSecretKeys(`${a.toString('base64')},not-a-key`)).toBeNull();
    const env = { ...process.env };
    try {
      process.env.WEBHOOK_SECRETS_PREVIOUS_KEYS = `${a.toString('base64')},short`;
      expect(() => loadConfig()).toThrow(/WEBHOOK_SECRETS_PREVIOUS_KEYS.*comma-separated/s);
      process.env.WEBHOOK_SECRETS_PREVIOUS_KEYS = a.toString('base64');
      process.env.WEBHOOK_SECRETS_KEY = newSecretKey();
      expect(webhookSecrets(loadConfig()).opens(secretBox(a).keyId)).toBe(true);
    } finally {
      process.env = env;
    }
  });

  it('takes a key as base64 or base64url of 32 bytes, and nothing else', () => {
    const key = crypto.randomBytes(32);
    expect(parseSecretKey(key.toString('base64'))).toEqual(key);
    expect(parseSecretKey(key.toString('base64url'))).toEqual(key);
    expect(parseSecretKey(`${newSecretKey()}\n`)).toHaveLength(32);
    expect(parseSecretKey(crypto.randomBytes(16).toString('base64'))).toBeNull();
    expect(parseSecretKey('not a key!')).toBeNull();
    expect(() => secretBox(crypto.randomBytes(16))).toThrow(/32 bytes, not 16/);
  });

  it('WEBHOOK_SECRETS_KEY is refused at start-up unless it is a key; unset, the key is made once in DATA_DIR', () => {
    const env = { ...process.env };
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'secrets-key-'));
    try {
      process.env.WEBHOOK_SECRETS_KEY = 'too-short';
      expect(() => loadConfig()).toThrow(/WEBHOOK_SECRETS_KEY.*base64 of 32 bytes/s);
      const key = newSecretKey();
      process.env.WEBHOOK_SECRETS_KEY = key;
      expect(webhookSecrets({ ...loadConfig(), DATA_DIR: dir }).keyId).toBe(secretBox(parseSecretKey(key)!).keyId);
      expect(fs.existsSync(path.join(dir, SECRETS_KEY_FILE))).toBe(false);

      const first = webhookSecrets({ WEBHOOK_SECRETS_KEY: undefined, DATA_DIR: dir });
      const file = path.join(dir, SECRETS_KEY_FILE);
      expect(fs.statSync(file).mode & 0o777).toBe(0o600);
      // Read again, not made again: what the first start sealed, the next one opens.
      expect(webhookSecrets({ WEBHOOK_SECRETS_KEY: undefined, DATA_DIR: dir }).open(first.seal(SECRET))).toBe(SECRET);
      fs.writeFileSync(file, 'damaged\n');
      expect(() => webhookSecrets({ WEBHOOK_SECRETS_KEY: undefined, DATA_DIR: dir })).toThrow(/does not hold a key/);
    } finally {
      process.env = env;
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('a value kept in DATA_DIR', () => {
  it('is made once: processes starting together all read the one written first, and no draft is left behind', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'data-file-'));
    try {
      // Twelve processes racing to make the same file, as API and worker processes sharing a DATA_DIR do at start.
      const script = `const { ensureDataFile } = require(${JSON.stringify(path.resolve('src/runtime/data-file.ts'))});
        process.stdout.write(ensureDataFile(process.argv[1], 'value', () => require('node:crypto').randomBytes(32).toString('base64')).value);`;
      const runs = Array.from({ length: 12 }, () => promisify(execFile)(process.execPath, ['--import', 'tsx', '-e', script, dir]));
      const values = (await Promise.all(runs)).map((r) => r.stdout);
      expect(new Set(values).size).toBe(1);
      expect(parseSecretKey(values[0]!)).toHaveLength(32);
      expect(fs.readdirSync(dir)).toEqual(['value']);
      expect(fs.statSync(path.join(dir, 'value')).mode & 0o777).toBe(0o600);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});
