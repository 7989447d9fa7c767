/**
 * SSH remotes as Git Sync keeps them (src/domain/git-sync/ssh-url.ts): both ways of writing one lead to the same
 * `ssh://user@host[:port]/path`, and nothing ssh could take for an option, nor a password, gets through.
 */
import { describe, expect, it } from 'vitest';
import { looksLikeSsh, sshRemote } from '../../src/domain/git-sync/ssh-url.js';
import { InvalidArgument } from '../../src/domain/errors.js';

describe('SSH remotes of Git Sync', () => {
  it.each([
    ['git@github.com:acme/docs.git', 'ssh://git@github.com/acme/docs.git', 'github.com', 22],
    ['ssh://git@github.com/acme/docs.git', 'ssh://git@github.com/acme/docs.git', 'github.com', 22],
    ['ssh://github.com/acme/docs.git', 'ssh://git@github.com/acme/docs.git', 'github.com', 22],
    ['ssh://git@GitLab.Example.com:2222/team/docs.git', 'ssh://git@gitlab.example.com:2222/team/docs.git', 'gitlab.example.com', 2222],
    ['ssh://git@host:22/docs.git', 'ssh://git@host/docs.git', 'host', 22],
    ['deploy@10.0.0.5:/srv/git/docs.git', 'ssh://deploy@10.0.0.5/srv/git/docs.git', '10.0.0.5', 22],
    ['git@host:~/docs.git', 'ssh://git@host/~/docs.git', 'host', 22],
    ['ssh://git@[2001:db8::1]:2222/docs.git', 'ssh://git@[2001:db8::1]:2222/docs.git', '2001:db8::1', 2222],
    ['git@[2001:db8::1]:docs.git', 'ssh://git@[2001:db8::1]/docs.git', '2001:db8::1', 22],
  ])('keeps %s as %s (SSH)', (raw, url, host, port) => {
    expect(looksLikeSsh(raw)).toBe(true);
    expect(sshRemote(raw)).toMatchObject({ url, host, port });
  });

  it('tells SSH remotes from the others (SSH)', () => {
    for (const raw of ['https://github.com/acme/docs.git', 'https://docs-bot:secret@example.com/docs.git', 'file:///etc/passwd', 'github.com:acme/docs.git', '/srv/git/docs.git']) {
      expect(looksLikeSsh(raw), raw).toBe(false);
    }
  });

  it.each([
    'ssh://git:secret@github.com/acme/docs.git',
    '-oProxyCommand=touch@github.com:acme/docs.git',
    'git@-oProxyCommand=touch:acme/docs.git',
    'ssh://-oProxyCommand=touch/acme/docs.git',
    'ssh://git@github.com/acme/docs.git?ref=main',
    'ssh://git@github.com/acme/docs.git#main',
    'ssh://git@github.com:0/acme/docs.git',
    'ssh://git@github.com/',
    'ssh://git@github.com/acme/my%20docs.git',
    "git@github.com:acme/docs';touch x'.git",
    'git@github.com:',
  ])('refuses %s naming url (SSH)', (raw) => {
    expect(looksLikeSsh(raw)).toBe(true);
    let error: unknown;
    try {
      sshRemote(raw);
    } catch (thrown) {
      error = thrown;
    }
    expect(error).toBeInstanceOf(InvalidArgument);
    expect((error as Error).message).toMatch(/^url: /);
  });
});
