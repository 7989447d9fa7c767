/** Settings read from the environment (config/index.ts): defaults, and values refused with the variable's name. */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../config/index.js';

describe('QUIRE_SEARCH_RANKINGS_MB', () => {
  it('is 16 MB by default, and 0 keeps no ranking', () => {
    expect(loadConfig({}).searchRankingsBytes).toBe(16 * 1024 * 1024);
    expect(loadConfig({ QUIRE_SEARCH_RANKINGS_MB: '0' }).searchRankingsBytes).toBe(0);
    expect(loadConfig({ QUIRE_SEARCH_RANKINGS_MB: '64' }).searchRankingsBytes).toBe(64 * 1024 * 1024);
  });

  it.each(['-1', '2.5', 'lots'])('refuses %s, naming the variable', (raw) => {
    expect(() => loadConfig({ QUIRE_SEARCH_RANKINGS_MB: raw })).toThrow(/^QUIRE_SEARCH_RANKINGS_MB: must be an integer of 0 or more/);
  });
});

describe('QUIRE_HEAP_GROWTH_PERCENT', () => {
  it('is 25 by default, and 0 leaves V8 its own factor', () => {
    expect(loadConfig({}).heapGrowthPercent).toBe(25);
    expect(loadConfig({ QUIRE_HEAP_GROWTH_PERCENT: '0' }).heapGrowthPercent).toBe(0);
    expect(loadConfig({ QUIRE_HEAP_GROWTH_PERCENT: '60' }).heapGrowthPercent).toBe(60);
  });

  it.each(['-5', '1.5', 'fast'])('refuses %s, naming the variable', (raw) => {
    expect(() => loadConfig({ QUIRE_HEAP_GROWTH_PERCENT: raw })).toThrow(ConfigError);
    expect(() => loadConfig({ QUIRE_HEAP_GROWTH_PERCENT: raw })).toThrow(/^QUIRE_HEAP_GROWTH_PERCENT: must be an integer of 0 or more/);
  });
});

describe('QUIRE_OIDC_*', () => {
  const base = { QUIRE_OIDC_ISSUER: 'https://idp.example.com', QUIRE_OIDC_CLIENT_ID: 'quire' };

  it('is unset by default; the secret comes from its file (preferred, winning) or the variable, kept from child processes', () => {
    expect(loadConfig({}).oidc).toBeUndefined();
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-oidc-'));
    const file = path.join(dir, 'secret');
    fs.writeFileSync(file, 'from-the-file\n');
    try {
      expect(loadConfig({ ...base, QUIRE_OIDC_CLIENT_SECRET_FILE: file, QUIRE_OIDC_CLIENT_SECRET: 'from-the-env' }).oidc).toEqual({
        issuer: 'https://idp.example.com',
        clientId: 'quire',
        clientSecret: 'from-the-file',
        label: 'Single sign-on',
      });
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
    const config = loadConfig({ ...base, QUIRE_OIDC_CLIENT_SECRET: 'from-the-env', QUIRE_OIDC_LABEL: 'Acme' });
    expect(config.oidc).toMatchObject({ clientSecret: 'from-the-env', label: 'Acme' });
    expect(config.childEnv.QUIRE_OIDC_CLIENT_SECRET).toBeUndefined();
  });

  it('refuses an incomplete or unreadable configuration, naming the variable', () => {
    expect(() => loadConfig({ QUIRE_OIDC_ISSUER: 'idp.example.com' })).toThrow(/^QUIRE_OIDC_ISSUER: /);
    expect(() => loadConfig({ QUIRE_OIDC_ISSUER: 'https://idp.example.com', QUIRE_OIDC_CLIENT_SECRET: 's' })).toThrow(/^QUIRE_OIDC_CLIENT_ID: /);
    expect(() => loadConfig(base)).toThrow(/^QUIRE_OIDC_CLIENT_SECRET_FILE: /);
    expect(() => loadConfig({ ...base, QUIRE_OIDC_CLIENT_SECRET_FILE: '/nonexistent/secret' })).toThrow(/^QUIRE_OIDC_CLIENT_SECRET_FILE: cannot read/);
  });
});

describe('QUIRE_SMTP_URL and QUIRE_MAIL_FROM', () => {
  const url = 'smtp://quire:s3cret-pass@mail.example.com:587';

  it('are unset by default; set, they give the mail settings, and the URL is kept from child processes', () => {
    expect(loadConfig({}).mail).toBeUndefined();
    const config = loadConfig({ QUIRE_SMTP_URL: url, QUIRE_MAIL_FROM: ' Quire <quire@example.com> ' });
    expect(config.mail).toEqual({ smtpUrl: url, from: 'Quire <quire@example.com>' });
    expect(config.childEnv.QUIRE_SMTP_URL).toBeUndefined();
    expect(loadConfig({ QUIRE_SMTP_URL: 'smtps://mail.example.com', QUIRE_MAIL_FROM: 'quire@example.com' }).mail?.from).toBe('quire@example.com');
  });

  it('refuses a URL that is not SMTP, or a missing or malformed sender, naming the variable and never quoting the URL', () => {
    for (const bad of ['https://quire:s3cret-pass@mail.example.com', 'mail.example.com', 'smtp://']) {
      expect(() => loadConfig({ QUIRE_SMTP_URL: bad, QUIRE_MAIL_FROM: 'quire@example.com' })).toThrow(/^QUIRE_SMTP_URL: must be an smtp:\/\/ or smtps:\/\/ URL/);
      expect(() => loadConfig({ QUIRE_SMTP_URL: bad, QUIRE_MAIL_FROM: 'quire@example.com' })).not.toThrow(/s3cret-pass/);
    }
    expect(() => loadConfig({ QUIRE_SMTP_URL: url })).toThrow(/^QUIRE_MAIL_FROM: required with QUIRE_SMTP_URL/);
    expect(() => loadConfig({ QUIRE_SMTP_URL: url, QUIRE_MAIL_FROM: 'Quire' })).toThrow(/^QUIRE_MAIL_FROM: must be an address/);
    expect(() => loadConfig({ QUIRE_MAIL_FROM: 'quire@example.com' })).toThrow(/^QUIRE_MAIL_FROM: is set but QUIRE_SMTP_URL is not/);
  });
});
