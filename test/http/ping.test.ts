import fs from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeProtectedHeader, importSPKI, jwtVerify } from 'jose';
import { DATABASE_KINDS } from '../helpers/databases.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { addMember } from '../../src/domain/members/members.js';

/** Flips one character of a base64url segment (not the last, whose spare bits may not count). */
function flip(segment: string): string {
  const i = Math.floor(segment.length / 2);
  return segment.slice(0, i) + (segment[i] === 'A' ? 'B' : 'A') + segment.slice(i + 1);
}

describe.each(DATABASE_KINDS)('POST /v1/orgs/:id/ping visitor claims (updateOrganizationMemberLastSeenAt, %s)', (kind) => {
  let t: TestApp;
  let publicKeyPem: string;

  beforeAll(async () => {
    t = await startTestApp(kind);
    publicKeyPem = await fs.readFile(path.join(t.config.dataDir, 'keys', 'visitor-claims.pub.pem'), 'utf8');
  });
  afterAll(async () => t?.close());

  const verify = async (jwt: string) => jwtVerify(jwt, await importSPKI(publicKeyPem, 'ES256'), { issuer: 'http://quire.test', algorithms: ['ES256'] });

  it("answers serviceVisitorClaims: a JWT of the member's claims that verifies with the data dir's public key", async () => {
    const org = await t.organization('Claims Co');
    const reader = await t.user(`reader-${kind}@claims.example`, 'Rita Reader');
    await addMember(t.container.ctx, org.id, reader.user.id, 'review');
    const before = Math.floor(Date.now() / 1000);
    const res = await t.request('POST', `/v1/orgs/${org.id}/ping`, { token: reader.token });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body)).toEqual(['serviceVisitorClaims']);
    const jwt = res.body.serviceVisitorClaims as string;
    const { payload, protectedHeader } = await verify(jwt);
    expect(protectedHeader).toMatchObject({ alg: 'ES256', typ: 'JWT', kid: expect.any(String) });
    expect(payload).toEqual({
      iss: 'http://quire.test',
      sub: reader.user.id,
      email: `reader-${kind}@claims.example`,
      name: 'Rita Reader',
      organization: org.id,
      role: 'review',
      iat: expect.any(Number),
      exp: expect.any(Number),
    });
    expect(payload.iat).toBeGreaterThanOrEqual(before);
    expect(payload.exp! - payload.iat!).toBe(3600);
    // The ping still records the member as seen, at the time the claims were issued.
    const member = await t.request('GET', `/v1/orgs/${org.id}/members/${reader.user.id}`, { token: reader.token });
    expect(Math.floor(Date.parse(member.body.lastSeenAt) / 1000)).toBe(payload.iat);
  });

  it('gives guests a null role and admins theirs', async () => {
    const org = await t.organization('Roles Co');
    const guest = await t.member(org.id, null);
    const guestClaims = await verify((await t.request('POST', `/v1/orgs/${org.id}/ping`, { token: guest.token })).body.serviceVisitorClaims);
    expect(guestClaims.payload).toMatchObject({ sub: guest.user.id, role: null, organization: org.id });
    const adminClaims = await verify((await t.request('POST', `/v1/orgs/${org.id}/ping`, { token: org.admin.token })).body.serviceVisitorClaims);
    expect(adminClaims.payload).toMatchObject({ sub: org.admin.user.id, role: 'admin' });
  });

  it('refuses a token whose claims or signature were changed', async () => {
    const org = await t.organization('Tamper Co');
    const reader = await t.member(org.id, 'read');
    const jwt = (await t.request('POST', `/v1/orgs/${org.id}/ping`, { token: reader.token })).body.serviceVisitorClaims as string;
    const [header, payload, signature] = jwt.split('.');
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
    const promoted = Buffer.from(JSON.stringify({ ...claims, role: 'admin' })).toString('base64url');
    await expect(verify(`${header}.${promoted}.${signature}`)).rejects.toThrow(/signature verification failed/);
    await expect(verify(`${header}.${payload}.${flip(signature)}`)).rejects.toThrow(/signature verification failed/);
    const unsigned = Buffer.from(JSON.stringify({ ...decodeProtectedHeader(jwt), alg: 'none' })).toString('base64url');
    await expect(verify(`${unsigned}.${payload}.`)).rejects.toThrow();
    await expect(verify(jwt)).resolves.toBeTruthy();
  });

  it('keeps the private key in the data dir, readable by its owner only', async () => {
    const file = path.join(t.config.dataDir, 'keys', 'visitor-claims.pem');
    const stat = await fs.stat(file);
    expect(stat.mode & 0o777).toBe(0o600);
    expect(await fs.readFile(file, 'utf8')).toMatch(/^-----BEGIN PRIVATE KEY-----\n/);
    expect(t.container.ctx.visitorClaims.publicJwk).toMatchObject({ kty: 'EC', crv: 'P-256', alg: 'ES256', use: 'sig', kid: expect.any(String) });
  });

  it('is 404 for non-members and unknown organizations, 401 without a token', async () => {
    const org = await t.organization();
    const stranger = await t.user();
    expect((await t.request('POST', `/v1/orgs/${org.id}/ping`, { token: stranger.token })).status).toBe(404);
    expect((await t.request('POST', '/v1/orgs/unknown-org/ping', { token: org.admin.token })).status).toBe(404);
    expect((await t.request('POST', `/v1/orgs/${org.id}/ping`)).status).toBe(401);
  });
});
