import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { Readable } from 'node:stream';
import * as tar from 'tar-stream';
import type { WorkspaceEntry } from '../tar';

/**
 * The tars the docker backend sends through the engine's archive API (`PUT /containers/{id}/archive`)
 * and the one it reads back (`GET …/archive?path=/logs/verifier`).
 */

async function packed(fill: (pack: tar.Pack) => void): Promise<Buffer> {
  const pack = tar.pack();
  const chunks: Buffer[] = [];
  const done = new Promise<Buffer>((resolve, reject) => {
    pack.on('data', (chunk: Buffer) => chunks.push(chunk));
    pack.on('end', () => resolve(Buffer.concat(chunks)));
    pack.on('error', reject);
  });
  fill(pack);
  pack.finalize();
  return done;
}

/** `tests/` as root's, read-only to others, test.sh executable (Harbor's `chmod +x`), to extract at `/`. */
export function testsTar(tests: Readonly<Record<string, string | Uint8Array>>): Promise<Buffer> {
  return packed((pack) => addTests(pack, tests));
}

/**
 * Everything a fresh container gets in one archive call: the workspace (as `addWorkspace` lays it
 * out), the tests (as `testsTar`) and an empty `/logs/verifier` anyone may write, as Harbor makes it.
 */
export function freshTar(entries: readonly WorkspaceEntry[], root: string, uid: number, tests: Readonly<Record<string, string | Uint8Array>>): Promise<Buffer> {
  return packed((pack) => {
    addWorkspace(pack, entries, root, uid);
    addTests(pack, tests);
    const now = new Date();
    pack.entry({ name: 'logs', type: 'directory', mode: 0o755, uid: 0, gid: 0, mtime: now });
    pack.entry({ name: 'logs/verifier', type: 'directory', mode: 0o777, uid: 0, gid: 0, mtime: now });
  });
}

/**
 * Verdict's Python start-up hook (../python/sitecustomize.py, built beside the bwrap runner), put in
 * with the tests; the test exec's script (processes.ts) puts this folder first on test.sh's
 * PYTHONPATH, before the image's and the task's own, so that the environment's modules win over a
 * workspace's `pytest.py` or `json.py` in the working directory.
 */
export const PYTHON_HOOK_AT = '/tests/.verdict-python';
const PYTHON_HOOK = readFileSync(path.join(__dirname, '..', 'python', 'sitecustomize.py'));

function addTests(pack: tar.Pack, tests: Readonly<Record<string, string | Uint8Array>>): void {
  const now = new Date();
  pack.entry({ name: 'tests', type: 'directory', mode: 0o755, uid: 0, gid: 0, mtime: now });
  // Root's and read-only to the test user, removed and put in again with /tests on every run.
  pack.entry({ name: PYTHON_HOOK_AT.slice(1), type: 'directory', mode: 0o755, uid: 0, gid: 0, mtime: now });
  pack.entry({ name: `${PYTHON_HOOK_AT.slice(1)}/sitecustomize.py`, mode: 0o644, uid: 0, gid: 0, mtime: now }, PYTHON_HOOK);
  const folders = new Set<string>();
  for (const rel of Object.keys(tests).map((p) => path.posix.normalize(p)).sort()) {
    const parts = rel.split('/');
    for (let k = 1; k < parts.length; k++) {
      const dir = parts.slice(0, k).join('/');
      if (!folders.has(dir)) pack.entry({ name: `tests/${dir}`, type: 'directory', mode: 0o755, uid: 0, gid: 0, mtime: now });
      folders.add(dir);
    }
  }
  for (const [rel, content] of Object.entries(tests)) {
    const name = path.posix.normalize(rel);
    const data = typeof content === 'string' ? Buffer.from(content) : Buffer.from(content.buffer, content.byteOffset, content.byteLength);
    pack.entry({ name: `tests/${name}`, mode: name === 'test.sh' ? 0o755 : 0o644, uid: 0, gid: 0, mtime: now }, data);
  }
}

/**
 * The workspace's entries (read and checked by ../tar.ts, the bwrap backend's member rules) as a
 * tar rooted at `/` with every member under `root` (the workdir, or `/` for a whole-filesystem
 * change set): the entries' modes and mtimes, owned by `uid`. Nothing the archive names is written
 * elsewhere: its paths are relative and link-checked already. A change set's `.` (the container's
 * `/`) is not replayed: the episode's archive does not decide the modes of `/`.
 */
function addWorkspace(pack: tar.Pack, entries: readonly WorkspaceEntry[], root: string, uid: number): void {
  const base = root.replace(/^\/+|\/+$/g, '');
  if (base === '') entries = entries.filter((e) => e.path !== '.');
  const now = new Date();
  const parts = base === '' ? [] : base.split('/');
  for (let k = 1; k < parts.length; k++) pack.entry({ name: parts.slice(0, k).join('/'), type: 'directory', mode: 0o755, uid: 0, gid: 0, mtime: now });
  // The workdir itself first (the archive's `.` where it has one), then what it holds.
  if (base !== '' && !entries.some((e) => e.path === '.')) pack.entry({ name: base, type: 'directory', mode: 0o755, uid, gid: uid, mtime: now });
  for (const entry of entries) {
    const name = entry.path === '.' ? base : base === '' ? entry.path : `${base}/${entry.path}`;
    // tar-stream writes a header's time as a 32-bit integer: later times (the member rules allow
    // up to 9999) are clamped to 2038-01-19.
    const mtime = new Date(Math.min(entry.mtime, 0x7fffffff) * 1000);
    const owner = { uid, gid: uid };
    if (entry.kind === 'dir') pack.entry({ name, type: 'directory', mode: entry.mode, mtime, ...owner });
    else if (entry.kind === 'symlink') pack.entry({ name, type: 'symlink', linkname: entry.target, mode: 0o777, mtime, ...owner });
    else pack.entry({ name, mode: entry.mode, mtime, ...owner }, Buffer.from(entry.data.buffer, entry.data.byteOffset, entry.data.byteLength));
  }
}

/** The reward files as /logs/verifier holds them: each file's head, null when absent or not a file. */
export interface RewardFiles {
  rewardTxt: string | null;
  rewardJson: string | null;
  /** Names of reward files that exist but are not regular files (a folder named reward.txt). */
  notFiles: Array<'reward.txt' | 'reward.json'>;
}

/**
 * Reads `GET /containers/{id}/archive?path=<folder>`: only the folder's reward.txt and reward.json,
 * each up to `maxBytes`. A reward file counts only as a regular file its owner may write, with no
 * other name: a folder, a link, a fifo, a hard link (another name for the same text, which someone
 * else may decide) or a file made read-only (so that test.sh's own `>` failed) is `notFiles`.
 * `folder` is the folder's own name: the archive of a symlink there is the link's target under
 * the target's name on Podman (the link followed), the link itself on Docker — either way the
 * reward files are not test.sh's, and both names are `notFiles`.
 */
export async function readRewardFiles(stream: Readable, maxBytes: number, folder: string): Promise<RewardFiles> {
  const extract = tar.extract();
  const found: RewardFiles = { rewardTxt: null, rewardJson: null, notFiles: [] };
  const bad = new Set<'reward.txt' | 'reward.json'>();
  stream.pipe(extract);
  for await (const entry of extract) {
    const name = entry.header.name.replace(/\/+$/, '');
    // The archive of a folder holds it by its own name: `verifier/reward.txt`, `.verdict-rewards/reward.txt`.
    const parts = name.split('/');
    if (parts[0] !== folder || (parts.length === 1 && entry.header.type !== 'directory')) {
      bad.add('reward.txt');
      bad.add('reward.json');
    }
    const base = parts.length === 2 && parts[0] === folder && (parts[1] === 'reward.txt' || parts[1] === 'reward.json') ? parts[1] : null;
    // A hard link's second name points at the first: that reward file has another name.
    const target = entry.header.type === 'link' ? (entry.header.linkname ?? '').split('/').pop() : undefined;
    if (target === 'reward.txt' || target === 'reward.json') bad.add(target);
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of entry as AsyncIterable<Buffer>) {
      if (base !== null && size < maxBytes) chunks.push(chunk);
      size += chunk.length;
    }
    if (base === null) continue;
    const key = base === 'reward.txt' ? 'rewardTxt' : 'rewardJson';
    if (entry.header.type === 'file' && ((entry.header.mode ?? 0) & 0o200) !== 0) found[key] = Buffer.concat(chunks).subarray(0, maxBytes).toString('utf8');
    else bad.add(base);
  }
  for (const base of bad) {
    found[base === 'reward.txt' ? 'rewardTxt' : 'rewardJson'] = null;
    found.notFiles.push(base);
  }
  return found;
}

/**
 * Whether `HEAD /containers/{id}/archive?path=<folder>` (its `X-Docker-Container-Path-Stat`, Go's
 * file mode bits) names a real folder at that path. Podman's archive of a symlinked folder is the
 * target's content under the link's name, indistinguishable from a real folder's; the stat shows
 * the link (its `linkTarget`, and the target's name or the symlink bit).
 */
export function isRealFolder(statHeader: string | undefined, folder: string): boolean {
  if (statHeader === undefined) return false;
  let stat: { name?: unknown; mode?: unknown; linkTarget?: unknown };
  try {
    stat = JSON.parse(Buffer.from(statHeader, 'base64').toString('utf8')) as typeof stat;
  } catch {
    return false;
  }
  const mode = typeof stat.mode === 'number' ? stat.mode : 0;
  const bit = (n: number) => Math.floor(mode / 2 ** n) % 2 === 1;
  // os.ModeDir is bit 31, os.ModeSymlink bit 27; Podman's linkTarget of a real folder is its own path, Docker's empty.
  const link = typeof stat.linkTarget === 'string' ? stat.linkTarget : '';
  return stat.name === folder.split('/').pop() && bit(31) && !bit(27) && (link === '' || link === folder);
}
