import { gunzipSync } from 'node:zlib';
import { WorkspaceError } from '../../core/ports/terminal';

/**
 * Reads a workspace archive (tar, or gzip-compressed tar) into the entries the runner creates in
 * the sandbox (runner.c): nothing of it is written on the host. The bytes come from the policy's
 * episode, so:
 *  - expansion is bounded by counted bytes, never by time: gunzip stops at `maxBytes` (a highly
 *    compressible member), a member's declared size counts before its data is read, and GNU sparse
 *    members are not expanded at all;
 *  - no member lands outside the root: absolute paths and `..` are skipped, as is any member whose
 *    path passes through a symlink of the archive or a file (the runner follows no link either); a
 *    symlink is kept only when its target, resolved **physically** through the archive's other
 *    links (as the kernel will), stays inside the root — for a whole-filesystem change set, out of
 *    /tests, /logs, /proc, /sys and /dev; a hardlink only as a copy of a file already read; a later
 *    member of the same path replaces an earlier one, but not a folder;
 *  - a whole-filesystem change set (`root: 'filesystem'`) keeps what lies outside the system folders
 *    the backend takes from the host (`usr`, `etc`, `lib` …, listed in SYSTEM_ROOTS): those members
 *    are skipped, counted per folder, and count toward no limit;
 *  - nesting is bounded (MAX_DEPTH levels: `too_large`), each member is checked against its parent
 *    only (every folder above a kept member is a folder of the archive), and folders the archive
 *    implies count as members: time and memory stay linear in the archive;
 *  - times are clamped to [1970, 9999]: a member dated `1e300`, `Infinity` or before 1970 is unpacked;
 *  - device nodes and fifos are skipped, and modes keep only their permission bits (no setuid,
 *    setgid or sticky).
 * Skipped members are reported by name; a malformed archive is a WorkspaceError (ABORTED: the bytes
 * were damaged on the way, the policy does not write them).
 */

export interface ArchiveLimits {
  maxBytes: number;
  maxMembers: number;
}

/** What the members' paths are relative to: the workdir, or `/` (a whole-filesystem change set). */
export type ArchiveRoot = 'workdir' | 'filesystem';

/** Deeper folders than this are refused (the runner holds one descriptor per level). */
const MAX_DEPTH = 256;
/** Top-level folders of a change set that are the system's, not the episode's: the backend's own. */
export const SYSTEM_ROOTS = new Set(['usr', 'bin', 'sbin', 'lib', 'lib32', 'lib64', 'libx32', 'etc', 'proc', 'sys', 'dev', 'run', 'boot', 'tests', 'logs', '.runner', '.workspace', '.verdict-python']);
/** Where no symlink of a change set may lead: the hidden tests, the reward folder, the kernel's views. */
const FORBIDDEN_TARGETS = new Set(['tests', 'logs', 'proc', 'sys', 'dev', '.runner', '.workspace', '.verdict-python']);
const HARMLESS_DEVICES = new Set(['dev/null', 'dev/zero', 'dev/random', 'dev/urandom']);
/** 9999-12-31: past it, and before 1970, a time is clamped. */
const MAX_TIME = 253_402_300_799;
/** Links resolved through more links than this fail in the kernel (ELOOP): refused here. */
const MAX_HOPS = 40;

/** One thing the runner creates under the workdir; `path` is relative, `.` the workdir itself. */
export type WorkspaceEntry =
  | { kind: 'dir'; path: string; mode: number; mtime: number }
  | { kind: 'file'; path: string; mode: number; mtime: number; data: Uint8Array }
  | { kind: 'symlink'; path: string; target: string; mtime: number };

/**
 * `systemFiles`: the paths (`/etc/app.conf`) of a change set's members other than folders that were
 * skipped under a system folder (not `tests/`, `logs/`), at most MAX_SYSTEM_FILES: the episode's
 * changes there, which a backend that takes those folders from elsewhere cannot show the tests.
 * `deletions`: the paths (`/app/secret.env`) a change set's whiteouts (`app/.wh.secret.env`, an OCI
 * layer's record of a deletion) remove, outside Verdict's own folders, at most MAX_SYSTEM_FILES: a
 * backend that starts from the task's image removes them, as the episode did.
 */
export type ArchiveRead = { ok: true; entries: WorkspaceEntry[]; skipped: string[]; systemFiles: string[]; deletions: string[] } | { ok: false; tooLarge: string };
const MAX_SYSTEM_FILES = 4096;
/** Top folders whose members are never the episode's answer: Verdict's own (the tests and the reward). */
const VERDICT_ROOTS = new Set(['tests', 'logs', '.runner', '.workspace', '.verdict-python']);

const BLOCK = 512;
/** Linux's NAME_MAX, and PATH_MAX less room for the workdir. */
const MAX_NAME_BYTES = 255;
const MAX_PATH_BYTES = 4000;

function cstring(block: Buffer, start: number, length: number): string {
  const end = block.indexOf(0, start);
  return block.toString('utf8', start, end < 0 || end > start + length ? start + length : end);
}

function octal(block: Buffer, start: number, length: number): number {
  // Base-256 (the high bit set) holds sizes over 8 GiB and, in two's complement (0xff first),
  // times before 1970.
  if ((block[start]! & 0x80) !== 0) {
    const negative = block[start] === 0xff;
    let value = negative ? 0 : block[start]! & 0x7f;
    for (let i = start + 1; i < start + length; i++) value = value * 256 + (negative ? 255 - block[i]! : block[i]!);
    return negative ? -(value + 1) : value;
  }
  const text = cstring(block, start, length).trim();
  if (text === '') return 0;
  if (!/^[0-7]+$/.test(text)) throw new WorkspaceError('archive_unreadable', `tar header field "${text}" is not octal`);
  return parseInt(text, 8);
}

function checksumOk(block: Buffer): boolean {
  let sum = 0;
  for (let i = 0; i < BLOCK; i++) sum += i >= 148 && i < 156 ? 32 : block[i]!;
  return sum === octal(block, 148, 8);
}

function paxRecords(data: Buffer): Map<string, string> {
  const out = new Map<string, string>();
  let offset = 0;
  while (offset < data.length) {
    const space = data.indexOf(0x20, offset);
    if (space < 0) break;
    const length = Number(data.toString('utf8', offset, space));
    if (!Number.isInteger(length) || length <= 0 || offset + length > data.length) break;
    const record = data.toString('utf8', space + 1, offset + length - 1);
    const eq = record.indexOf('=');
    if (eq > 0) out.set(record.slice(0, eq), record.slice(eq + 1));
    offset += length;
  }
  return out;
}

/** A time as the kernel will take it: whole seconds in [0, 9999-12-31]; NaN is 0. */
function clampTime(value: number): number {
  if (Number.isNaN(value) || value < 0) return 0;
  return Math.min(MAX_TIME, Math.floor(value));
}

/** `a/./b/` → `a/b`; null for an absolute path, `..`, or nothing. */
function clean(name: string): string | null {
  if (name.startsWith('/') || name.includes('\0')) return null;
  const parts = name.split('/').filter((p) => p !== '' && p !== '.');
  if (parts.length === 0 || parts.includes('..')) return null;
  return parts.join('/');
}

/**
 * Where a symlink at `at` leads once the kernel follows it and every link of the archive on the way:
 * the path's components from the root, or null when it climbs above the root (a workdir archive)
 * or goes round too many links.
 */
function resolveLink(at: string, target: string, entries: Map<string, WorkspaceEntry>, root: ArchiveRoot, budget: { steps: number }): string[] | null {
  let hops = 0;
  const walk = (stack: string[], link: string): string[] | null => {
    if (++hops > MAX_HOPS) return null;
    if (link.startsWith('/')) {
      if (root === 'workdir') return null;
      stack = [];
    }
    for (const part of link.split('/')) {
      if (--budget.steps < 0) return null;
      if (part === '' || part === '.') continue;
      if (part === '..') {
        // `/..` is `/` for the kernel; above a workdir is outside it.
        if (stack.length === 0 && root === 'workdir') return null;
        stack.pop();
        continue;
      }
      stack.push(part);
      const there = entries.get(stack.join('/'));
      if (there?.kind === 'symlink') {
        const next = walk(stack.slice(0, -1), there.target);
        if (next === null) return null;
        stack = next;
      }
    }
    return stack;
  };
  return walk(at.split('/').slice(0, -1), target);
}

type TooLarge = Extract<ArchiveRead, { ok: false }>;

/** The archive's tar bytes: gunzipped when it is gzip, the expansion bounded by the limits. */
function tarBytes(archive: Uint8Array, limits: ArchiveLimits): Buffer | TooLarge {
  const bytes = Buffer.from(archive.buffer, archive.byteOffset, archive.byteLength);
  if (bytes[0] !== 0x1f || bytes[1] !== 0x8b) return bytes;
  try {
    // Headers and padding on top of the data: a generous bound that a bomb still cannot pass.
    return gunzipSync(bytes, { maxOutputLength: limits.maxBytes + (limits.maxMembers + 2) * 2 * BLOCK });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ERR_BUFFER_TOO_LARGE' || error instanceof RangeError) return { ok: false, tooLarge: `expands past ${limits.maxBytes} bytes` };
    throw new WorkspaceError('archive_unreadable', `gzip: ${(error as Error).message}`);
  }
}

/** One member as its header (with the pax or GNU long-name records before it) declares it. */
interface Member {
  type: string;
  name: string;
  linkName: string;
  size: number;
  mtime: number;
  mode: number;
  /** Where its data starts in the tar bytes (not yet checked against their end). */
  dataStart: number;
}

/** The members of the tar bytes in order, up to the end-of-archive block; the extended headers applied. */
function* members(bytes: Buffer): Generator<Member> {
  let offset = 0;
  let pax = new Map<string, string>();
  let longName: string | null = null;
  let longLink: string | null = null;
  while (offset + BLOCK <= bytes.length) {
    const header = bytes.subarray(offset, offset + BLOCK);
    if (header.every((b) => b === 0)) return;
    if (!checksumOk(header)) throw new WorkspaceError('archive_unreadable', `tar header at byte ${offset}: bad checksum`);
    const type = String.fromCharCode(header[156]!);
    const size = octal(header, 124, 12);
    const dataStart = offset + BLOCK;
    offset = dataStart + Math.ceil(size / BLOCK) * BLOCK;
    if (type === 'x' || type === 'g' || type === 'L' || type === 'K') {
      if (dataStart + size > bytes.length) throw new WorkspaceError('archive_unreadable', 'tar: truncated extended header');
      const data = bytes.subarray(dataStart, dataStart + size);
      if (type === 'x') pax = paxRecords(data);
      else if (type === 'L') longName = cstring(data, 0, data.length);
      else if (type === 'K') longLink = cstring(data, 0, data.length);
      continue;
    }
    const magic = header.toString('utf8', 257, 262);
    const prefix = magic === 'ustar' ? cstring(header, 345, 155) : '';
    const name = pax.get('path') ?? longName ?? (prefix ? `${prefix}/${cstring(header, 0, 100)}` : cstring(header, 0, 100));
    const linkName = pax.get('linkpath') ?? longLink ?? cstring(header, 157, 100);
    const declared = pax.has('size') ? Number(pax.get('size')) : size;
    const mtime = clampTime(pax.has('mtime') ? Number(pax.get('mtime')) : octal(header, 136, 12));
    pax = new Map();
    longName = null;
    longLink = null;
    if (declared < 0 || !Number.isFinite(declared)) throw new WorkspaceError('archive_unreadable', `tar: a member of size ${declared}`);
    yield { type, name, linkName, size: declared, mtime, mode: octal(header, 100, 8) & 0o777, dataStart };
  }
}

/**
 * The workspace as the members build it: path → entry, in the order the runner creates them (a
 * member that replaces an earlier one of the same path moves to the end, after the folders it
 * needs), with the members and bytes counted against the limits and what was skipped, and why.
 */
class Tree {
  readonly entries = new Map<string, WorkspaceEntry>();
  readonly skipped: string[] = [];
  /** Members of a change set under the system's folders, per folder: skipped, counted once. */
  readonly system = new Map<string, number>();
  /** ArchiveRead's `systemFiles` and `deletions`. */
  readonly systemFiles: string[] = [];
  readonly deletions: string[] = [];
  private members = 0;
  private total = 0;

  constructor(private readonly limits: ArchiveLimits) {}

  /** One more member; a refusal once there are too many. */
  count(more = 1): TooLarge | null {
    this.members += more;
    return this.members > this.limits.maxMembers ? { ok: false, tooLarge: `more than ${this.limits.maxMembers} members` } : null;
  }

  /** `bytes` more of file data; a refusal once there are too many. */
  spend(bytes: number): TooLarge | null {
    this.total += bytes;
    return this.total > this.limits.maxBytes ? { ok: false, tooLarge: `more than ${this.limits.maxBytes} bytes` } : null;
  }

  /** Puts an entry at its path, unless a folder is there already or a symlink or file is on the way. */
  place(entry: WorkspaceEntry): TooLarge | null {
    const there = this.entries.get(entry.path);
    if (there?.kind === 'dir' && entry.kind !== 'dir') {
      this.skipped.push(`${entry.path}: would replace a folder`);
      return null;
    }
    const above = this.parents(entry.path, entry.mtime);
    if (typeof above === 'object') return above;
    if (above !== 'ok') {
      this.skipped.push(`${entry.path}: under a ${above === 'link' ? 'symlink' : 'file'}`);
      return null;
    }
    this.entries.delete(entry.path);
    this.entries.set(entry.path, entry);
    return null;
  }

  /**
   * The folders above a member: each one a folder of the archive (listed, or implied here and
   * counted as a member). Every folder in `entries` has only folders above it, so the parent
   * answers for all of them, and a missing one is walked up to the nearest that is there.
   * 'link' / 'file' when a symlink or a file stands on the way.
   */
  private parents(rel: string, mtime: number): 'ok' | 'link' | 'file' | TooLarge {
    const missing: string[] = [];
    for (let dir = rel.slice(0, Math.max(0, rel.lastIndexOf('/'))); dir !== ''; dir = dir.slice(0, Math.max(0, dir.lastIndexOf('/')))) {
      const there = this.entries.get(dir);
      if (there?.kind === 'symlink') return 'link';
      if (there?.kind === 'file') return 'file';
      if (there?.kind === 'dir') break;
      missing.push(dir);
    }
    const refused = this.count(missing.length);
    if (refused) return refused;
    for (const dir of missing.reverse()) this.entries.set(dir, { kind: 'dir', path: dir, mode: 0o755, mtime });
    return 'ok';
  }
}

/**
 * Where a member lands, relative to the root: null when it is not unpacked (the skip recorded in
 * `tree`), a refusal when it passes a limit. The archive's own root is handled here too.
 */
function locate(member: Member, tree: Tree, root: ArchiveRoot, skipRoots: ReadonlySet<string>): string | null | TooLarge {
  const { name, type } = member;
  // The archive's own root ("./") is the workspace itself (a change set's `/` is the backend's).
  if (name.split('/').every((p) => p === '' || p === '.') && type === '5') {
    if (root === 'workdir') tree.entries.set('.', { kind: 'dir', path: '.', mode: member.mode | 0o700, mtime: member.mtime });
    return null;
  }
  // A change set's members may be written `/tmp/x` or `tmp/x` (docker export has no slash).
  const rel = clean(root === 'filesystem' ? name.replace(/^\/+/, '') : name);
  if (rel === null) {
    tree.skipped.push(`${name}: outside the workspace`);
    return null;
  }
  const top = rel.split('/', 1)[0]!;
  // An OCI layer's whiteout (`.wh.NAME`, `.wh..wh..opq`) records a deletion: nothing to unpack.
  if (root === 'filesystem' && rel.slice(rel.lastIndexOf('/') + 1).startsWith('.wh.')) {
    const deleted = rel.slice(rel.lastIndexOf('/') + 1 + '.wh.'.length);
    // An opaque folder (`.wh..wh..opq`: its image content replaced) is not applied.
    if (deleted.startsWith('.wh.') || deleted === '' || deleted === '.' || deleted === '..' || VERDICT_ROOTS.has(top) || tree.deletions.length >= MAX_SYSTEM_FILES) {
      tree.skipped.push(`${rel}: a whiteout (a deletion in a layer diff) not applied`);
    } else tree.deletions.push(`/${rel.slice(0, rel.lastIndexOf('/') + 1)}${deleted}`);
    return null;
  }
  if (root === 'filesystem' && skipRoots.has(top)) {
    tree.system.set(top, (tree.system.get(top) ?? 0) + 1);
    if (type !== '5' && !VERDICT_ROOTS.has(top) && tree.systemFiles.length < MAX_SYSTEM_FILES) tree.systemFiles.push(`/${rel}`);
    return null;
  }
  const refused = tree.count();
  if (refused) return refused;
  // Counted on the path itself: one pass over its bytes.
  let depth = 1;
  for (let k = rel.indexOf('/'); k >= 0; k = rel.indexOf('/', k + 1)) depth++;
  if (depth > MAX_DEPTH + (type === '5' ? 0 : 1)) return { ok: false, tooLarge: `folders nested deeper than ${MAX_DEPTH}` };
  // Names the kernel refuses would fail the runner, not the workspace.
  if (Buffer.byteLength(rel) > MAX_PATH_BYTES || rel.split('/').some((part) => Buffer.byteLength(part) > MAX_NAME_BYTES)) {
    tree.skipped.push(`${rel.slice(0, 100)}…: name too long`);
    return null;
  }
  return rel;
}

/** Adds the member at `rel` by its type: a file, folder, symlink or hardlink; anything else is skipped. */
function unpack(member: Member, rel: string, bytes: Buffer, tree: Tree, root: ArchiveRoot): TooLarge | null {
  const { type, linkName, mode, mtime } = member;
  if (type === '0' || type === '\0' || type === '7') {
    const refused = tree.spend(member.size);
    if (refused) return refused;
    const end = member.dataStart + member.size;
    if (end > bytes.length) throw new WorkspaceError('archive_unreadable', `tar: ${rel} is truncated`);
    return tree.place({ kind: 'file', path: rel, mode, mtime, data: bytes.subarray(member.dataStart, end) });
  }
  if (type === '5') {
    const there = tree.entries.get(rel);
    if (there === undefined) return tree.place({ kind: 'dir', path: rel, mode: mode | 0o700, mtime });
    if (there.kind !== 'dir') tree.skipped.push(`${rel}: a folder in place of a file`);
    else tree.entries.set(rel, { ...there, mode: mode | 0o700, mtime });
    return null;
  }
  if (type === '2') {
    if (linkName === '' || Buffer.byteLength(linkName) > MAX_PATH_BYTES) tree.skipped.push(`${rel}: symlink with ${linkName === '' ? 'no' : 'too long a'} target`);
    else if (root === 'workdir' && linkName.startsWith('/')) tree.skipped.push(`${rel}: symlink out of the workspace (${linkName})`);
    // Where a relative one leads is checked once every member is in (a later link can change it).
    else return tree.place({ kind: 'symlink', path: rel, target: linkName, mtime });
    return null;
  }
  if (type === '1') {
    const source = tree.entries.get(clean(linkName) ?? '');
    if (source?.kind !== 'file') {
      tree.skipped.push(`${rel}: hardlink to ${linkName}, not a file of the workspace`);
      return null;
    }
    return tree.spend(source.data.length) ?? tree.place({ ...source, path: rel });
  }
  if (type === 'S') tree.skipped.push(`${rel}: sparse member (not expanded)`);
  else tree.skipped.push(`${rel}: ${type === '3' ? 'character device' : type === '4' ? 'block device' : type === '6' ? 'fifo' : `member type ${JSON.stringify(type)}`} not unpacked`);
  return null;
}

/**
 * Drops the symlinks that lead out of the root once followed physically. One pass: a link removed
 * here is no link at run time either, so a later one that went through it now dangles there.
 * Steps of resolution, counted: the links of a valid archive take a few each.
 */
function dropEscapingLinks(tree: Tree, root: ArchiveRoot, limits: ArchiveLimits): TooLarge | null {
  const budget = { steps: 64 * limits.maxMembers };
  for (const entry of tree.entries.values()) {
    if (entry.kind !== 'symlink') continue;
    const to = resolveLink(entry.path, entry.target, tree.entries, root, budget);
    if (budget.steps < 0) return { ok: false, tooLarge: `symlinks that take more than ${64 * limits.maxMembers} steps to resolve` };
    if (to !== null && !(root === 'filesystem' && FORBIDDEN_TARGETS.has(to[0] ?? '') && !HARMLESS_DEVICES.has(to.join('/')))) continue;
    tree.skipped.push(`${entry.path}: symlink out of the workspace (${entry.target})`);
    tree.entries.delete(entry.path);
  }
  return null;
}

/**
 * `skipRoots`: the top folders of a change set that are not unpacked (SYSTEM_ROOTS, what the bwrap
 * backend takes from the host; a container backend keeps the episode's /usr and /etc).
 */
export function readArchive(archive: Uint8Array, limits: ArchiveLimits, root: ArchiveRoot = 'workdir', skipRoots: ReadonlySet<string> = SYSTEM_ROOTS): ArchiveRead {
  const bytes = tarBytes(archive, limits);
  if (!Buffer.isBuffer(bytes)) return bytes;
  const tree = new Tree(limits);
  for (const member of members(bytes)) {
    const rel = locate(member, tree, root, skipRoots);
    if (rel === null) continue;
    if (typeof rel !== 'string') return rel;
    const refused = unpack(member, rel, bytes, tree, root);
    if (refused) return refused;
  }
  const refused = dropEscapingLinks(tree, root, limits);
  if (refused) return refused;
  for (const [top, count] of tree.system) tree.skipped.push(`${top}/…: ${count} member${count === 1 ? '' : 's'} under a system folder, which the backend takes from its own environment`);
  return { ok: true, entries: [...tree.entries.values()], skipped: tree.skipped, systemFiles: tree.systemFiles, deletions: tree.deletions };
}
