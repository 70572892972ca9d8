import { createHash, generateKeyPairSync, randomBytes, sign, type KeyObject } from 'node:crypto';

/**
 * A software authenticator for the tests (issue 40, lib/auth/passkeys.ts): makes real WebAuthn
 * responses, as a browser with a platform authenticator would send them, so @simplewebauthn/server
 * checks them as it checks any. Each passkey is an ES256 (P-256) key made with node:crypto; the
 * registration's attestation is `none` (what the dashboard asks for), its objects CBOR-encoded by
 * the small encoder below. `origin` is the page's origin the browser would put in clientDataJSON.
 */

const b64url = (bytes: Uint8Array | Buffer) => Buffer.from(bytes).toString('base64url');
const sha256 = (data: Uint8Array | string) => createHash('sha256').update(data).digest();

type Cbor = number | string | Uint8Array | Map<Cbor, Cbor> | Record<string, unknown>;

/** CBOR (RFC 8949) of what WebAuthn needs: integers, byte and text strings, maps. */
function cbor(value: Cbor): Buffer {
  const head = (major: number, n: number): Buffer => {
    if (n < 24) return Buffer.from([(major << 5) | n]);
    if (n < 0x100) return Buffer.from([(major << 5) | 24, n]);
    if (n < 0x10000) return Buffer.from([(major << 5) | 25, n >> 8, n & 0xff]);
    const b = Buffer.alloc(5);
    b[0] = (major << 5) | 26;
    b.writeUInt32BE(n, 1);
    return b;
  };
  if (typeof value === 'number') return value >= 0 ? head(0, value) : head(1, -1 - value);
  if (typeof value === 'string') {
    const bytes = Buffer.from(value, 'utf8');
    return Buffer.concat([head(3, bytes.length), bytes]);
  }
  if (value instanceof Uint8Array) return Buffer.concat([head(2, value.length), value]);
  const entries = value instanceof Map ? [...value.entries()] : Object.entries(value);
  return Buffer.concat([head(5, entries.length), ...entries.flatMap(([k, v]) => [cbor(k as Cbor), cbor(v as Cbor)])]);
}

interface Credential {
  id: Buffer;
  key: KeyObject;
  publicCose: Buffer;
  userHandle: string;
  rpId: string;
  counter: number;
}

/** authenticatorData's flags: user present, user verified, attested credential data included. */
const UP = 0x01;
const UV = 0x04;
const AT = 0x40;

export class SoftAuthenticator {
  readonly credentials: Credential[] = [];
  /** How much the signature counter grows a use; 0 for an authenticator that keeps none. */
  counterStep = 1;

  constructor(readonly origin: string) {}

  /** The browser's answer to startRegistration with these options: a new passkey, kept here. */
  register(options: { challenge: string; rp: { id?: string }; user: { id: string } }): Record<string, unknown> {
    const rpId = options.rp.id ?? new URL(this.origin).hostname;
    const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const jwk = publicKey.export({ format: 'jwk' });
    // COSE_Key (RFC 9053): kty EC2, alg ES256, crv P-256, x, y.
    const publicCose = cbor(new Map<Cbor, Cbor>([[1, 2], [3, -7], [-1, 1], [-2, Buffer.from(jwk.x!, 'base64url')], [-3, Buffer.from(jwk.y!, 'base64url')]]));
    const credential: Credential = { id: randomBytes(16), key: privateKey, publicCose, userHandle: options.user.id, rpId, counter: 0 };
    this.credentials.push(credential);
    const idLength = Buffer.alloc(2);
    idLength.writeUInt16BE(credential.id.length);
    const authData = Buffer.concat([sha256(rpId), Buffer.from([UP | UV | AT]), Buffer.alloc(4), Buffer.alloc(16), idLength, credential.id, publicCose]);
    const clientDataJSON = Buffer.from(JSON.stringify({ type: 'webauthn.create', challenge: options.challenge, origin: this.origin, crossOrigin: false }));
    return {
      id: b64url(credential.id),
      rawId: b64url(credential.id),
      type: 'public-key',
      response: { clientDataJSON: b64url(clientDataJSON), attestationObject: b64url(cbor({ fmt: 'none', attStmt: new Map(), authData })), transports: ['internal'] },
      clientExtensionResults: {},
      authenticatorAttachment: 'platform',
    };
  }

  /** The browser's answer to startAuthentication with these options, signed by `credential` (the last registered unless told). */
  authenticate(options: { challenge: string; rpId?: string }, credential: Credential = this.credentials.at(-1)!, { origin = this.origin }: { origin?: string } = {}): Record<string, unknown> {
    credential.counter += this.counterStep;
    const count = Buffer.alloc(4);
    count.writeUInt32BE(credential.counter);
    const authData = Buffer.concat([sha256(options.rpId ?? credential.rpId), Buffer.from([UP | UV]), count]);
    const clientDataJSON = Buffer.from(JSON.stringify({ type: 'webauthn.get', challenge: options.challenge, origin, crossOrigin: false }));
    // ES256: ECDSA with SHA-256 over authenticatorData and the hash of clientDataJSON, DER-encoded (node:crypto's default).
    const signature = sign('sha256', Buffer.concat([authData, sha256(clientDataJSON)]), credential.key);
    return {
      id: b64url(credential.id),
      rawId: b64url(credential.id),
      type: 'public-key',
      response: { clientDataJSON: b64url(clientDataJSON), authenticatorData: b64url(authData), signature: b64url(signature), userHandle: credential.userHandle },
      clientExtensionResults: {},
      authenticatorAttachment: 'platform',
    };
  }
}
