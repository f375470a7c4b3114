import { execFileSync } from 'node:child_process';
import { chmodSync, linkSync, mkdirSync, mkdtempSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { NONCE_FILE, readStashOnHost } from '../../services/terminal/docker/host-read';

/**
 * The host read of the docker backend on real files: a folder laid out as a container's root
 * (MergedDir) with the fused script's stash in it. What the episode could leave at each path below
 * the root is made here with real links, fifos and modes.
 */
const STASH = '/tmp/.verdict-rewards';
const NONCE = '0123456789abcdef0123456789abcdef';
const made: string[] = [];
afterAll(() => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});

function root(files: Record<string, string> = {}, nonce: string | null = NONCE): { merged: string; stash: string } {
  const merged = mkdtempSync(path.join(tmpdir(), 'verdict-merged-'));
  made.push(merged);
  const stash = path.join(merged, STASH);
  mkdirSync(stash, { recursive: true });
  if (nonce !== null) writeFileSync(path.join(stash, NONCE_FILE), `${nonce}\n`);
  for (const [name, text] of Object.entries(files)) writeFileSync(path.join(stash, name), text);
  return { merged, stash };
}

describe('docker backend: the reward files read on the host (host-read.ts)', () => {
  it('reads the reward files once the nonce is this run\'s', async () => {
    const { merged } = root({ 'reward.txt': '1\n', 'reward.json': '{"reward": 1}' });
    expect(await readStashOnHost(merged, STASH, NONCE, 1024)).toEqual({ kind: 'read', rewards: { rewardTxt: '1\n', rewardJson: '{"reward": 1}', notFiles: [] } });
    const { merged: empty } = root();
    expect(await readStashOnHost(empty, STASH, NONCE, 1024)).toEqual({ kind: 'read', rewards: { rewardTxt: null, rewardJson: null, notFiles: [] } });
  });

  it('is unconfirmed when the nonce is absent or another run\'s, or the folder is not here', async () => {
    expect((await readStashOnHost(root({ 'reward.txt': '1' }, null).merged, STASH, NONCE, 1024)).kind).toBe('unconfirmed');
    expect((await readStashOnHost(root({ 'reward.txt': '1' }, 'f'.repeat(32)).merged, STASH, NONCE, 1024)).kind).toBe('unconfirmed');
    expect((await readStashOnHost(path.join(tmpdir(), 'verdict-no-such-merged-dir'), STASH, NONCE, 1024)).kind).toBe('unconfirmed');
    expect((await readStashOnHost('relative/merged', STASH, NONCE, 1024)).kind).toBe('unconfirmed');
  });

  it('follows no symlink below MergedDir: a linked stash or /tmp is unconfirmed (the archive read decides), a linked reward file is not a regular file', async () => {
    // The stash moved aside and a link left in its place, nonce and all: not followed.
    const linkedStash = root({ 'reward.txt': '1' });
    renameSync(linkedStash.stash, path.join(linkedStash.merged, 'tmp', 'elsewhere'));
    symlinkSync('elsewhere', linkedStash.stash);
    expect((await readStashOnHost(linkedStash.merged, STASH, NONCE, 1024)).kind).toBe('unconfirmed');
    // /tmp a link to a folder holding a stash with the right nonce.
    const linkedTmp = root({ 'reward.txt': '1' });
    renameSync(path.join(linkedTmp.merged, 'tmp'), path.join(linkedTmp.merged, 'var-tmp'));
    symlinkSync('var-tmp', path.join(linkedTmp.merged, 'tmp'));
    expect((await readStashOnHost(linkedTmp.merged, STASH, NONCE, 1024)).kind).toBe('unconfirmed');
    // reward.txt a link to a file holding 1 (absolute, as the container would read it, and relative).
    const linkedReward = root({ 'answer': '1' });
    symlinkSync('/tmp/.verdict-rewards/answer', path.join(linkedReward.stash, 'reward.txt'));
    symlinkSync('answer', path.join(linkedReward.stash, 'reward.json'));
    expect(await readStashOnHost(linkedReward.merged, STASH, NONCE, 1024)).toEqual({ kind: 'read', rewards: { rewardTxt: null, rewardJson: null, notFiles: ['reward.txt', 'reward.json'] } });
  });

  it('counts a folder, a fifo, a hard link or a read-only file at a reward path as not a regular file, and reads no more than the bound', async () => {
    const folder = root({ 'reward.json': '{"reward": 1}' });
    mkdirSync(path.join(folder.stash, 'reward.txt'));
    chmodSync(path.join(folder.stash, 'reward.json'), 0o444);
    expect(await readStashOnHost(folder.merged, STASH, NONCE, 1024)).toEqual({ kind: 'read', rewards: { rewardTxt: null, rewardJson: null, notFiles: ['reward.txt', 'reward.json'] } });
    const fifo = root({ 'other': '1' });
    // A fifo at reward.txt: opened without blocking, and not read.
    execFileSync('mkfifo', [path.join(fifo.stash, 'reward.txt')]);
    linkSync(path.join(fifo.stash, 'other'), path.join(fifo.stash, 'reward.json'));
    expect(await readStashOnHost(fifo.merged, STASH, NONCE, 1024)).toEqual({ kind: 'read', rewards: { rewardTxt: null, rewardJson: null, notFiles: ['reward.txt', 'reward.json'] } });
    const large = root({ 'reward.txt': '1'.repeat(5000) });
    expect(await readStashOnHost(large.merged, STASH, NONCE, 64)).toEqual({ kind: 'read', rewards: { rewardTxt: '1'.repeat(64), rewardJson: null, notFiles: [] } });
  });
});
