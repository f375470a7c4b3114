/**
 * A POSIX ustar archive from a list of entries, in memory: enough for the audit's hostile
 * workspaces (files, folders, symlinks, hard links, device nodes, any mode bits, any name, `..`
 * included), which are the point of it; reading archives is the workspace service's job.
 */

export interface TarEntry {
  name: string;
  type?: 'file' | 'dir' | 'symlink' | 'hardlink' | 'char';
  data?: string | Uint8Array;
  /** Permission bits, setuid and setgid included; default 0644 (0755 for folders). */
  mode?: number;
  linkname?: string;
}

const BLOCK = 512;
const TYPEFLAG = { file: '0', hardlink: '1', symlink: '2', char: '3', dir: '5' } as const;

function put(header: Uint8Array, offset: number, width: number, text: string): void {
  const bytes = new TextEncoder().encode(text);
  if (bytes.length > width) throw new RangeError(`tar field of ${width} bytes cannot hold ${JSON.stringify(text)}`);
  header.set(bytes, offset);
}

const octal = (n: number, width: number) => n.toString(8).padStart(width - 1, '0');

function headerOf(entry: TarEntry, size: number): Uint8Array {
  const type = entry.type ?? 'file';
  const header = new Uint8Array(BLOCK);
  put(header, 0, 100, entry.name);
  put(header, 100, 8, octal(entry.mode ?? (type === 'dir' ? 0o755 : 0o644), 8));
  put(header, 108, 8, octal(0, 8));
  put(header, 116, 8, octal(0, 8));
  put(header, 124, 12, octal(size, 12));
  put(header, 136, 12, octal(0, 12));
  put(header, 148, 8, '        '); // the checksum is summed with its own field as spaces
  put(header, 156, 1, TYPEFLAG[type]);
  put(header, 157, 100, entry.linkname ?? '');
  put(header, 257, 8, 'ustar\u000000');
  let sum = 0;
  for (const b of header) sum += b;
  put(header, 148, 8, `${octal(sum, 7)}\u0000`);
  return header;
}

export function tarOf(entries: readonly TarEntry[]): Uint8Array {
  const parts: Uint8Array[] = [];
  for (const entry of entries) {
    const data = entry.type === undefined || entry.type === 'file' ? (typeof entry.data === 'string' ? new TextEncoder().encode(entry.data) : entry.data ?? new Uint8Array()) : new Uint8Array();
    parts.push(headerOf(entry, data.length), data, new Uint8Array((BLOCK - (data.length % BLOCK)) % BLOCK));
  }
  parts.push(new Uint8Array(2 * BLOCK));
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}
