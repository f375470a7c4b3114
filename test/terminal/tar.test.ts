import { tarOf } from '../../core/tar';
import { readArchive } from '../../services/terminal/tar';

const limits = { maxBytes: 1 << 20, maxMembers: 100 };

describe('workspace archives: what a change set records besides its files', () => {
  it('reads whiteouts as deletions (Verdict\'s folders and opaque folders aside) and lists the files it skips under system folders', () => {
    const read = readArchive(
      tarOf([
        { name: 'app/.wh.secret.env', data: '' },
        { name: 'home/user/.wh.cache', data: '' },
        { name: 'app/.wh..wh..opq', data: '' },
        { name: 'tests/.wh.test.sh', data: '' },
        { name: 'logs/verifier/.wh.reward.txt', data: '' },
        { name: 'etc/backup.conf', data: 'DEST=/x\n' },
        { name: 'usr/local/bin', type: 'dir' },
        { name: 'usr/local/bin/tool', data: '#!/bin/sh\n', mode: 0o755 },
        { name: 'tests/planted.py', data: 'x' },
        { name: 'app/main.py', data: 'print(1)\n' },
      ]),
      limits,
      'filesystem',
    );
    if (!read.ok) throw new Error(read.tooLarge);
    expect(read.deletions).toEqual(['/app/secret.env', '/home/user/cache']);
    expect(read.systemFiles).toEqual(['/etc/backup.conf', '/usr/local/bin/tool']);
    expect(read.skipped).toEqual(expect.arrayContaining([expect.stringMatching(/^app\/\.wh\.\.wh\.\.opq: a whiteout .* not applied/), expect.stringMatching(/^tests\/\.wh\.test\.sh: a whiteout/)]));
    expect(read.entries.map((e) => e.path)).toEqual(expect.arrayContaining(['app/main.py']));
    // A workdir archive has no whiteouts: a `.wh.` name is a file like any other.
    const workdir = readArchive(tarOf([{ name: '.wh.notes', data: 'x' }]), limits, 'workdir');
    expect(workdir).toMatchObject({ ok: true, deletions: [], entries: expect.arrayContaining([expect.objectContaining({ path: '.wh.notes' })]) });
  });
});
