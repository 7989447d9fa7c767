/**
 * Secrets stored in the database encrypted (the tokens and deploy keys Quire uses to reach other git hosts): sealed
 * with AES-256-GCM under a key kept apart from the database, so that a database dump or replica holds no usable
 * credential. The key is `<dataDir>/keys/<name>.key` (32 random bytes, base64, mode 0600, made on first start by
 * whichever process comes first: ./key-files.ts), or one given by configuration. Lose the key and the sealed secrets
 * are lost with it (they are entered again); a sealed text names no key, so a key is replaced only by sealing again.
 *
 * A sealed text is `v1.<iv>.<tag>.<ciphertext>` (base64url): a fresh 12-byte IV each time, GCM's 16-byte tag, which
 * `open` checks, so a text altered or sealed under another key is refused, never decrypted into garbage. `context`
 * (what the secret is of, such as a space id) is bound as additional data: a sealed text copied onto another row
 * does not open there.
 */
import crypto from 'node:crypto';
import path from 'node:path';
import { keysFolder, readOrCreateKeyFile } from './key-files.js';

const KEY_BYTES = 32;
const IV_BYTES = 12;
const VERSION = 'v1';

export class SecretBox {
  private constructor(private readonly key: Buffer) {}

  /** A box with `key` (32 bytes), as configuration gives it. */
  static withKey(key: Buffer): SecretBox {
    if (key.length !== KEY_BYTES) throw new Error(`a secrets key must be ${KEY_BYTES} bytes (base64 of 32 random bytes); got ${key.length}`);
    return new SecretBox(Buffer.from(key));
  }

  /** The box of the data dir's key file `name`, made on first use. */
  static async ofDataDir(dataDir: string, name: string): Promise<SecretBox> {
    const file = path.join(await keysFolder(dataDir), `${name}.key`);
    const text = await readOrCreateKeyFile(file, () => `${crypto.randomBytes(KEY_BYTES).toString('base64')}\n`);
    const key = Buffer.from(text.trim(), 'base64');
    if (key.length !== KEY_BYTES) throw new Error(`${file}: not a secrets key (base64 of ${KEY_BYTES} bytes)`);
    return new SecretBox(key);
  }

  /**
   * A fingerprint of `text` for `context` (HMAC-SHA256 under a key derived from the box's, hex): equal texts give equal
   * fingerprints, and a fingerprint tells nothing of its text, not even to a guess, without the key (a plain hash of a
   * weak token could be guessed from the fingerprint alone).
   */
  fingerprint(text: string, context: string): string {
    const key = Buffer.from(crypto.hkdfSync('sha256', this.key, Buffer.alloc(0), `quire fingerprint: ${context}`, KEY_BYTES));
    return crypto.createHmac('sha256', key).update(text, 'utf8').digest('hex');
  }

  /** `secret` sealed, bound to `context`. */
  seal(secret: string, context: string): string {
    const iv = crypto.randomBytes(IV_BYTES);
    const cipher = crypto.createCipheriv('aes-256-gcm', this.key, iv);
    cipher.setAAD(Buffer.from(context, 'utf8'));
    const sealed = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final()]);
    return [VERSION, iv.toString('base64url'), cipher.getAuthTag().toString('base64url'), sealed.toString('base64url')].join('.');
  }

  /** The secret of a text `seal` made with `context`; throws when it was altered, sealed elsewhere or under another key. */
  open(text: string, context: string): string {
    const [version, iv, tag, sealed, ...rest] = text.split('.');
    if (version !== VERSION || iv === undefined || tag === undefined || sealed === undefined || rest.length > 0) throw new Error('not a sealed secret');
    const decipher = crypto.createDecipheriv('aes-256-gcm', this.key, Buffer.from(iv, 'base64url'));
    decipher.setAAD(Buffer.from(context, 'utf8'));
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    try {
      return Buffer.concat([decipher.update(Buffer.from(sealed, 'base64url')), decipher.final()]).toString('utf8');
    } catch (error) {
      throw new Error('a sealed secret does not open with this key (altered, sealed for something else, or under another key)', { cause: error });
    }
  }
}
