import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { WorkspaceError } from '../../core/ports/workspace';

/**
 * Reads a workspace archive (tar, or gzip-compressed tar) into the entries the runner creates in
 * the sandbox (runner.c): nothing of it is written on the host. The bytes come from the policy's
 * episode, so:
 *  - expansion is bounded by counted bytes, never by time: gunzip stops at `maxBytes` (a highly
 *    compressible member), a member's declared size counts before its data is read, and GNU sparse
 *    members are not expanded at all;
 *  - no member lands outside the root: absolute paths and `..` are skipped, as is any member whose
 *    path passes through a symlink of the archive or a file (the runner follows no link either); a
 *    symlink is kept only when its target stays inside the workspace, a hardlink only as a copy of
 *    a file already read; a later member of the same path replaces an earlier one, but not a folder;
 *  - device nodes and fifos are skipped, and modes keep only their permission bits (no setuid,
 *    setgid or sticky).
 * Skipped members are reported by name; a malformed archive is a WorkspaceError (ABORTED: the bytes
 * were damaged on the way, the policy does not write them).
 */

export interface ArchiveLimits {
  maxBytes: number;
  maxMembers: number;
}

/** One thing the runner creates under the workdir; `path` is relative, `.` the workdir itself. */
export type WorkspaceEntry =
  | { kind: 'dir'; path: string; mode: number; mtime: number }
  | { kind: 'file'; path: string; mode: number; mtime: number; data: Uint8Array }
  | { kind: 'symlink'; path: string; target: string; mtime: number };

export type ArchiveRead = { ok: true; entries: WorkspaceEntry[]; skipped: string[] } | { ok: false; tooLarge: string };

const BLOCK = 512;
/** Linux's NAME_MAX, and PATH_MAX less room for the workdir. */
const MAX_NAME_BYTES = 255;
const MAX_PATH_BYTES = 4000;

function cstring(block: Buffer, start: number, length: number): string {
  const end = block.indexOf(0, start);
  return block.toString('utf8', start, end < 0 || end > start + length ? start + length : end);
}

function octal(block: Buffer, start: number, length: number): number {
  // Base-256 (the high bit set) holds sizes over 8 GiB.
  if ((block[start]! & 0x80) !== 0) {
    let value = block[start]! & 0x7f;
    for (let i = start + 1; i < start + length; i++) value = value * 256 + block[i]!;
    return value;
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

/** `a/./b/` → `a/b`; null for an absolute path, `..`, or nothing. */
function clean(name: string): string | null {
  if (name.startsWith('/') || name.includes('\0')) return null;
  const parts = name.split('/').filter((p) => p !== '' && p !== '.');
  if (parts.length === 0 || parts.includes('..')) return null;
  return parts.join('/');
}

export function readArchive(archive: Uint8Array, limits: ArchiveLimits): ArchiveRead {
  let bytes = Buffer.from(archive.buffer, archive.byteOffset, archive.byteLength);
  if (bytes[0] === 0x1f && bytes[1] === 0x8b) {
    try {
      // Headers and padding on top of the data: a generous bound that a bomb still cannot pass.
      bytes = gunzipSync(bytes, { maxOutputLength: limits.maxBytes + (limits.maxMembers + 2) * 2 * BLOCK });
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ERR_BUFFER_TOO_LARGE' || error instanceof RangeError) return { ok: false, tooLarge: `expands past ${limits.maxBytes} bytes` };
      throw new WorkspaceError('archive_unreadable', `gzip: ${(error as Error).message}`);
    }
  }
  const skipped: string[] = [];
  // Path → entry, in the order the runner creates them: a member that replaces an earlier one of
  // the same path moves to the end, after the folders it needs.
  const entries = new Map<string, WorkspaceEntry>();
  let members = 0;
  let total = 0;
  let offset = 0;
  let pax = new Map<string, string>();
  let longName: string | null = null;
  let longLink: string | null = null;
  const throughLink = (rel: string) => {
    const parts = rel.split('/');
    for (let k = 1; k < parts.length; k++) if (entries.get(parts.slice(0, k).join('/'))?.kind === 'symlink') return true;
    return false;
  };
  /** The folders above a member that the archive did not list; false when one is not a folder. */
  const parents = (rel: string, mtime: number): boolean => {
    const parts = rel.split('/');
    for (let k = 1; k < parts.length; k++) {
      const dir = parts.slice(0, k).join('/');
      const there = entries.get(dir);
      if (there === undefined) entries.set(dir, { kind: 'dir', path: dir, mode: 0o755, mtime });
      else if (there.kind !== 'dir') return false;
    }
    return true;
  };
  const place = (entry: WorkspaceEntry): void => {
    const there = entries.get(entry.path);
    if (there?.kind === 'dir' && entry.kind !== 'dir') {
      skipped.push(`${entry.path}: would replace a folder`);
      return;
    }
    if (!parents(entry.path, entry.mtime)) {
      skipped.push(`${entry.path}: under a file`);
      return;
    }
    entries.delete(entry.path);
    entries.set(entry.path, entry);
  };
  while (offset + BLOCK <= bytes.length) {
    const header = bytes.subarray(offset, offset + BLOCK);
    if (header.every((b) => b === 0)) break;
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
    members++;
    if (members > limits.maxMembers) return { ok: false, tooLarge: `more than ${limits.maxMembers} members` };
    const magic = header.toString('utf8', 257, 262);
    const prefix = magic === 'ustar' ? cstring(header, 345, 155) : '';
    const rawName = pax.get('path') ?? longName ?? (prefix ? `${prefix}/${cstring(header, 0, 100)}` : cstring(header, 0, 100));
    const linkName = pax.get('linkpath') ?? longLink ?? cstring(header, 157, 100);
    const declared = pax.has('size') ? Number(pax.get('size')) : size;
    const mtime = Math.max(0, Math.floor(Number(pax.get('mtime') ?? octal(header, 136, 12)))) || 0;
    pax = new Map();
    longName = null;
    longLink = null;
    const mode = octal(header, 100, 8) & 0o777;
    // The archive's own root ("./") is the workspace itself.
    if (rawName.split('/').every((p) => p === '' || p === '.') && type === '5') {
      entries.set('.', { kind: 'dir', path: '.', mode: mode | 0o700, mtime });
      continue;
    }
    const rel = clean(rawName);
    if (rel === null) {
      skipped.push(`${rawName}: outside the workspace`);
      continue;
    }
    if (throughLink(rel)) {
      skipped.push(`${rel}: under a symlink`);
      continue;
    }
    // Names the kernel refuses would fail the runner, not the workspace.
    if (Buffer.byteLength(rel) > MAX_PATH_BYTES || rel.split('/').some((part) => Buffer.byteLength(part) > MAX_NAME_BYTES)) {
      skipped.push(`${rel.slice(0, 100)}…: name too long`);
      continue;
    }
    if (type === '0' || type === '\0' || type === '7') {
      total += declared;
      if (total > limits.maxBytes) return { ok: false, tooLarge: `more than ${limits.maxBytes} bytes` };
      if (dataStart + declared > bytes.length) throw new WorkspaceError('archive_unreadable', `tar: ${rel} is truncated`);
      place({ kind: 'file', path: rel, mode, mtime, data: bytes.subarray(dataStart, dataStart + declared) });
    } else if (type === '5') {
      const there = entries.get(rel);
      if (there !== undefined && there.kind !== 'dir') skipped.push(`${rel}: a folder in place of a file`);
      else if (there !== undefined) entries.set(rel, { ...there, mode: mode | 0o700, mtime });
      else place({ kind: 'dir', path: rel, mode: mode | 0o700, mtime });
    } else if (type === '2') {
      if (linkName === '' || Buffer.byteLength(linkName) > MAX_PATH_BYTES) {
        skipped.push(`${rel}: symlink with ${linkName === '' ? 'no' : 'too long a'} target`);
        continue;
      }
      const resolved = linkName.startsWith('/') ? null : clean(path.posix.join(path.posix.dirname(rel), linkName));
      if (resolved === null) {
        skipped.push(`${rel}: symlink out of the workspace (${linkName})`);
        continue;
      }
      place({ kind: 'symlink', path: rel, target: linkName, mtime });
    } else if (type === '1') {
      const source = entries.get(clean(linkName) ?? '');
      if (source?.kind !== 'file') {
        skipped.push(`${rel}: hardlink to ${linkName}, not a file of the workspace`);
        continue;
      }
      total += source.data.length;
      if (total > limits.maxBytes) return { ok: false, tooLarge: `more than ${limits.maxBytes} bytes` };
      place({ ...source, path: rel });
    } else if (type === 'S') {
      skipped.push(`${rel}: sparse member (not expanded)`);
    } else {
      skipped.push(`${rel}: ${type === '3' ? 'character device' : type === '4' ? 'block device' : type === '6' ? 'fifo' : `member type ${JSON.stringify(type)}`} not unpacked`);
    }
  }
  return { ok: true, entries: [...entries.values()], skipped };
}
