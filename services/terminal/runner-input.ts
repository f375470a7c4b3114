import path from 'node:path';
import type { WorkspaceEntry } from './tar';

/**
 * What the runner (runner.c) reads on its stdin: the workspace's entries, paths rooted at `/`
 * (`w`; index.ts has put the workdir's path before a workdir archive's), and the task's tests/
 * files, to create in /tests (`t`). Each entry is a header line
 * `<w|t> <d|f|l> <mode octal> <mtime> <path length> <data length>`, then the path's bytes, then the
 * data (a file's bytes, a link's target). Folders come before what they hold.
 *
 * The chunks reference the archive's bytes; nothing is copied.
 */
export function runnerInput(workspace: readonly WorkspaceEntry[], tests: Readonly<Record<string, string | Uint8Array>>): Buffer[] {
  const chunks: Buffer[] = [];
  const add = (where: 'w' | 't', kind: 'd' | 'f' | 'l', entryPath: string, mode: number, mtime: number, data: Uint8Array) => {
    const name = Buffer.from(entryPath);
    chunks.push(Buffer.from(`${where} ${kind} ${mode.toString(8)} ${mtime} ${name.length} ${data.length}\n`), name);
    if (data.length > 0) chunks.push(Buffer.from(data.buffer, data.byteOffset, data.byteLength));
  };
  const none = new Uint8Array(0);
  for (const entry of workspace) {
    if (entry.kind === 'dir') add('w', 'd', entry.path, entry.mode, entry.mtime, none);
    else if (entry.kind === 'file') add('w', 'f', entry.path, entry.mode, entry.mtime, entry.data);
    else add('w', 'l', entry.path, 0o777, entry.mtime, Buffer.from(entry.target));
  }
  // The tests' files as the task gives them (their paths are checked relative ones), root's.
  const now = Math.floor(Date.now() / 1000);
  const folders = new Set<string>();
  for (const rel of Object.keys(tests).map((p) => path.posix.normalize(p)).sort()) {
    const parts = rel.split('/');
    for (let k = 1; k < parts.length; k++) {
      const dir = parts.slice(0, k).join('/');
      if (!folders.has(dir)) add('t', 'd', dir, 0o755, now, none);
      folders.add(dir);
    }
  }
  // test.sh executable, as Harbor's `chmod +x` leaves it: it runs itself, by its shebang.
  for (const [rel, content] of Object.entries(tests)) {
    const name = path.posix.normalize(rel);
    add('t', 'f', name, name === 'test.sh' ? 0o755 : 0o644, now, typeof content === 'string' ? Buffer.from(content) : content);
  }
  return chunks;
}
