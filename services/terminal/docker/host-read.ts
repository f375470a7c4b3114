import { constants } from 'node:fs';
import { lstat, open } from 'node:fs/promises';
import path from 'node:path';
import type { RewardFiles } from './archive';

/**
 * The reward files read from the engine's storage on this host, while the container is paused:
 * the container's root as the engine mounts it (`GraphDriver.Data.MergedDir` of the inspect,
 * overlay2 in Docker and overlay in Podman) opened directly, in place of the archive API (on
 * Podman a paused container's archive costs about twice a running one's, ~230 ms here).
 *
 * The path is trusted only once it is shown to be this container's: the fused script wrote the
 * nonce Verdict gave it (processes.ts, `NONCE_FILE` in the stash), and it must be read back here.
 * Anything else — no such folder here (a remote engine, rootless storage in another mount
 * namespace, another driver), a stale path, a nonce absent or different, a `/tmp` or stash that is
 * not a real folder — is `unconfirmed`, and the caller reads through the archive API as before.
 *
 * The paths below MergedDir are the episode's: every component is lstat'ed and none is followed
 * when it is a symlink; a reward file counts under the archive reader's rules (archive.ts): a
 * regular file, owner-writable, one name (link count 1), opened with O_NOFOLLOW and read up to
 * `maxBytes`; anything else at a reward path is `notFiles`.
 */

/** The nonce's file inside the stash: the archive reader ignores every name but the reward files. */
export const NONCE_FILE = '.verdict-nonce';

export type HostRead = { kind: 'read'; rewards: RewardFiles } | { kind: 'unconfirmed'; why: string };

export async function readStashOnHost(mergedDir: string, stash: string, nonce: string, maxBytes: number): Promise<HostRead> {
  if (!path.isAbsolute(mergedDir) || !path.posix.isAbsolute(stash)) return { kind: 'unconfirmed', why: 'not an absolute path' };
  // MergedDir itself is the engine's word; each folder below it is the episode's.
  let at = mergedDir;
  for (const part of ['', ...stash.split('/').filter((p) => p !== '')]) {
    at = part === '' ? at : path.join(at, part);
    const stat = await lstat(at).catch(() => null);
    if (stat === null || !stat.isDirectory()) return { kind: 'unconfirmed', why: `${at}: not a folder here` };
  }
  const written = await readRegular(path.join(at, NONCE_FILE), 256);
  if (written === null || written === 'not_regular' || written.trim() !== nonce) return { kind: 'unconfirmed', why: 'the nonce is absent or differs' };
  const rewards: RewardFiles = { rewardTxt: null, rewardJson: null, notFiles: [] };
  for (const name of ['reward.txt', 'reward.json'] as const) {
    const text = await readRegular(path.join(at, name), maxBytes);
    if (text === 'not_regular') rewards.notFiles.push(name);
    else rewards[name === 'reward.txt' ? 'rewardTxt' : 'rewardJson'] = text;
  }
  return { kind: 'read', rewards };
}

/** A file's head (null: absent), or `not_regular`: a link, a folder, a fifo, read-only, another name. */
async function readRegular(file: string, maxBytes: number): Promise<string | null | 'not_regular'> {
  const before = await lstat(file).catch((error: NodeJS.ErrnoException) => (error.code === 'ENOENT' ? null : 'not_regular' as const));
  if (before === null || before === 'not_regular') return before;
  if (!before.isFile() || (before.mode & 0o200) === 0 || before.nlink !== 1) return 'not_regular';
  // O_NOFOLLOW and O_NONBLOCK: nothing swapped in after the lstat is followed or blocks the read.
  const handle = await open(file, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK).catch(() => null);
  if (handle === null) return 'not_regular';
  try {
    const after = await handle.stat();
    if (!after.isFile() || after.ino !== before.ino || after.dev !== before.dev || after.nlink !== 1) return 'not_regular';
    const buffer = Buffer.alloc(Math.min(maxBytes, after.size));
    let filled = 0;
    while (filled < buffer.length) {
      const { bytesRead } = await handle.read(buffer, filled, buffer.length - filled, filled);
      if (bytesRead === 0) break;
      filled += bytesRead;
    }
    return buffer.subarray(0, filled).toString('utf8');
  } finally {
    await handle.close();
  }
}
