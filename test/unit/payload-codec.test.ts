import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Payload } from '@temporalio/common';
import { loadConfig } from '../../src/config';
import { PAYLOAD_KEY_FILE, temporalPayloadCodec } from '../../src/runtime/payload-key';
import { ENCRYPTED_ENCODING, EncryptionCodec, KEY_ID_METADATA, PayloadDecryptionError, payloadKeyId } from '../../src/temporal/payload-codec';
import { temporalTls } from '../../src/temporal/tls';

const json = (value: unknown): Payload => ({ metadata: { encoding: Buffer.from('json/plain') }, data: Buffer.from(JSON.stringify(value)) });
const text = (bytes: Uint8Array | null | undefined) => Buffer.from(bytes ?? []).toString('utf8');
const guest = { first_name: 'Sara', last_name: 'Ahmadi', national_id: '0012345679' };

describe('the payload codec', () => {
  const key = crypto.randomBytes(32);
  const codec = new EncryptionCodec(key);

  it('encrypts a payload whole (metadata too), naming its key, with a fresh nonce each time, and decrypts it back', async () => {
    const [a, b] = await codec.encode([json(guest), json(guest)]);
    expect(text(a!.metadata!.encoding)).toBe(ENCRYPTED_ENCODING);
    expect(text(a!.metadata![KEY_ID_METADATA])).toBe(payloadKeyId(key));
    expect(Object.keys(a!.metadata!).sort()).toEqual([KEY_ID_METADATA, 'encoding'].sort());
    expect(text(a!.data)).not.toContain('Ahmadi');
    expect(text(a!.data)).not.toContain('json/plain');
    expect(Buffer.from(a!.data!).equals(Buffer.from(b!.data!))).toBe(false);
    const [back] = await codec.decode([a!]);
    expect(text(back!.metadata!.encoding)).toBe('json/plain');
    expect(JSON.parse(text(back!.data))).toEqual(guest);
  });

  it('passes a payload without its encoding through on decode (histories written before payloads were encrypted)', async () => {
    const plain = json(guest);
    expect(await codec.decode([plain])).toEqual([plain]);
  });

  it('fails loudly on a key it does not hold, and on altered ciphertext', async () => {
    const [other] = await new EncryptionCodec(crypto.randomBytes(32)).encode([json(guest)]);
    await expect(codec.decode([other!])).rejects.toThrow(PayloadDecryptionError);
    await expect(codec.decode([other!])).rejects.toThrow(/encrypted under key [0-9a-f]{8}, but this process holds key/);
    const [mine] = await codec.encode([json(guest)]);
    const altered = Buffer.from(mine!.data!);
    altered[20] = altered[20]! ^ 1;
    await expect(codec.decode([{ ...mine!, data: altered }])).rejects.toThrow(/failed its integrity check/);
    // The key id is authenticated: a payload relabelled as another key's does not open under it.
    const relabelled = { ...mine!, metadata: { ...mine!.metadata!, [KEY_ID_METADATA]: Buffer.from('00000000') } };
    await expect(codec.decode([relabelled])).rejects.toThrow(PayloadDecryptionError);
  });

  it('rotates: the newest key encrypts, the previous ones still decrypt', async () => {
    const [old] = await codec.encode([json(guest)]);
    const rotated = new EncryptionCodec(crypto.randomBytes(32), [key]);
    expect(JSON.parse(text((await rotated.decode([old!]))[0]!.data))).toEqual(guest);
    const [fresh] = await rotated.encode([json(guest)]);
    expect(text(fresh!.metadata![KEY_ID_METADATA])).toBe(rotated.keyId);
    expect(rotated.decrypts(codec.keyId)).toBe(true);
    await expect(codec.decode([fresh!])).rejects.toThrow(PayloadDecryptionError);
  });

  it('takes TEMPORAL_PAYLOAD_KEY, or makes and keeps one in DATA_DIR (npm start: the same key after a restart)', async () => {
    const configured = crypto.randomBytes(32);
    expect(temporalPayloadCodec(loadConfig({ TEMPORAL_PAYLOAD_KEY: configured.toString('base64') })).keyId).toBe(payloadKeyId(configured));
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'payload-key-'));
    try {
      const first = temporalPayloadCodec(loadConfig({ DATA_DIR: dir }));
      expect(fs.statSync(path.join(dir, PAYLOAD_KEY_FILE)).mode & 0o777).toBe(0o600);
      expect(temporalPayloadCodec(loadConfig({ DATA_DIR: dir })).keyId).toBe(first.keyId);
      fs.writeFileSync(path.join(dir, PAYLOAD_KEY_FILE), 'not a key\n');
      expect(() => temporalPayloadCodec(loadConfig({ DATA_DIR: dir }))).toThrow(/does not hold a key/);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
    expect(() => loadConfig({ TEMPORAL_PAYLOAD_KEY: 'short' })).toThrow(/TEMPORAL_PAYLOAD_KEY: must be base64 of 32 bytes/);
  });
});

describe('TLS to the Temporal cluster', () => {
  const files: Record<string, string> = { '/ca.pem': 'CA', '/client.pem': 'CERT', '/client.key': 'KEY' };
  const read = (file: string) => {
    if (!(file in files)) throw new Error('ENOENT: no such file');
    return Buffer.from(files[file]!);
  };
  const tls = (env: Record<string, string>) => temporalTls(loadConfig({ TEMPORAL_ADDRESS: 'temporal.example:7233', ...env }), read);

  it('is off unless asked for, and never to the dev server npm start runs', () => {
    expect(tls({})).toBeUndefined();
    expect(temporalTls(loadConfig({ TEMPORAL_TLS: 'true' }), read)).toBeUndefined();
  });

  it('builds server TLS, a CA, mTLS and the server name from the settings', () => {
    expect(tls({ TEMPORAL_TLS: 'true' })).toEqual({});
    expect(tls({ TEMPORAL_TLS_CA: '/ca.pem', TEMPORAL_TLS_SERVER_NAME: 'frontend.internal' })).toEqual({
      serverRootCACertificate: Buffer.from('CA'),
      serverNameOverride: 'frontend.internal',
    });
    expect(tls({ TEMPORAL_TLS: 'true', TEMPORAL_TLS_CA: '/ca.pem', TEMPORAL_TLS_CERT: '/client.pem', TEMPORAL_TLS_KEY: '/client.key' })).toEqual({
      serverRootCACertificate: Buffer.from('CA'),
      clientCertPair: { crt: Buffer.from('CERT'), key: Buffer.from('KEY') },
    });
  });

  it('refuses a certificate without its key, and names the setting of a file it cannot read', () => {
    expect(() => tls({ TEMPORAL_TLS_CERT: '/client.pem' })).toThrow(/TEMPORAL_TLS_KEY: mTLS takes both/);
    expect(() => tls({ TEMPORAL_TLS_CA: '/missing.pem' })).toThrow(/TEMPORAL_TLS_CA: cannot read \/missing.pem/);
  });
});
