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
  /** Modification time in the header (default 0); a negative one is written base-256, as GNU tar does. */
  mtime?: number;
  /** PAX extended header records before the member (`path`, `mtime`, …): any text, as a hostile archive has it. */
  pax?: Record<string, string>;
}

const BLOCK = 512;
const TYPEFLAG = { file: '0', hardlink: '1', symlink: '2', char: '3', dir: '5' } as const;

function put(header: Uint8Array, offset: number, width: number, text: string): void {
  const bytes = new TextEncoder().encode(text);
  if (bytes.length > width) throw new RangeError(`tar field of ${width} bytes cannot hold ${JSON.stringify(text)}`);
  header.set(bytes, offset);
}

const octal = (n: number, width: number) => n.toString(8).padStart(width - 1, '0');

function headerOf(entry: TarEntry, size: number, typeflag?: string): Uint8Array {
  const type = entry.type ?? 'file';
  const header = new Uint8Array(BLOCK);
  // A name past 100 bytes travels in the PAX header; the ustar field keeps its tail.
  put(header, 0, 100, new TextDecoder().decode(new TextEncoder().encode(entry.name).slice(-100)).replace(/^\uFFFD+/, ''));
  put(header, 100, 8, octal(entry.mode ?? (type === 'dir' ? 0o755 : 0o644), 8));
  put(header, 108, 8, octal(0, 8));
  put(header, 116, 8, octal(0, 8));
  put(header, 124, 12, octal(size, 12));
  const mtime = entry.mtime ?? 0;
  if (mtime >= 0) put(header, 136, 12, octal(mtime, 12));
  else {
    // Base-256, two's complement, high bit set: how GNU tar writes a time before 1970.
    let value = BigInt(mtime) + (1n << 95n);
    for (let i = 147; i > 136; i--, value >>= 8n) header[i] = Number(value & 0xffn);
    header[136] = 0xff;
  }
  put(header, 148, 8, '        '); // the checksum is summed with its own field as spaces
  put(header, 156, 1, typeflag ?? TYPEFLAG[type]);
  put(header, 157, 100, entry.linkname ?? '');
  put(header, 257, 8, 'ustar\u000000');
  let sum = 0;
  for (const b of header) sum += b;
  put(header, 148, 8, `${octal(sum, 7)}\u0000`);
  return header;
}

/** `<length> <key>=<value>\n`, the length counting itself. */
function paxRecord(key: string, value: string): string {
  const rest = ` ${key}=${value}\n`;
  const bytes = new TextEncoder().encode(rest).length;
  let length = bytes + String(bytes).length;
  if (String(length).length !== String(bytes).length) length = bytes + String(length).length;
  return `${length}${rest}`;
}

export function tarOf(entries: readonly TarEntry[]): Uint8Array {
  const parts: Uint8Array[] = [];
  for (const entry of entries) {
    if (entry.pax) {
      const body = new TextEncoder().encode(Object.entries(entry.pax).map(([k, v]) => paxRecord(k, v)).join(''));
      parts.push(headerOf({ name: 'PaxHeader' }, body.length, 'x'), body, new Uint8Array((BLOCK - (body.length % BLOCK)) % BLOCK));
    }
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
