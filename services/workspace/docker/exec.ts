import { PassThrough } from 'node:stream';
import type Docker from 'dockerode';

/** What one exec in a container gave: its exit code and the tail of its output (stdout and stderr together). */
export interface ExecResult {
  exitCode: number;
  /** The tail of its output, and its first bytes (where a script's own first line stands). */
  output: string;
  head: string;
}

/** A bounded tail of a stream's bytes: what is kept of test.sh's output. */
const HEAD_BYTES = 64 << 10;

class Tail {
  private chunks: Buffer[] = [];
  private size = 0;
  private first: Buffer[] = [];
  private firstSize = 0;
  constructor(private readonly max: number) {}
  head(): string {
    return Buffer.concat(this.first).subarray(0, HEAD_BYTES).toString('utf8');
  }
  push(chunk: Buffer): void {
    if (this.firstSize < HEAD_BYTES) {
      this.first.push(chunk);
      this.firstSize += chunk.length;
    }
    this.chunks.push(chunk);
    this.size += chunk.length;
    while (this.size - this.chunks[0]!.length >= this.max) this.size -= this.chunks.shift()!.length;
  }
  text(): string {
    const all = Buffer.concat(this.chunks);
    return all.subarray(Math.max(0, all.length - this.max)).toString('utf8');
  }
}

/**
 * Runs `cmd` through the engine's exec API and waits for it to end. `stop` is called when the
 * exec must be cut short (wall time, cancel): the engine has no "kill this exec", so the caller
 * kills its processes with another exec, which ends this one's stream.
 */
export async function execIn(
  docker: Docker,
  container: Docker.Container,
  options: {
    cmd: string[];
    user?: string;
    workdir?: string;
    env?: string[];
    tailBytes: number;
    /** With stdin: called with the output's head as it grows, and a writer to the exec's stdin. */
    dialog?: (head: string, write: (text: string) => void) => void;
  },
): Promise<ExecResult> {
  const exec = await container.exec({
    Cmd: options.cmd,
    ...(options.dialog ? { AttachStdin: true } : {}),
    AttachStdout: true,
    AttachStderr: true,
    ...(options.user !== undefined ? { User: options.user } : {}),
    ...(options.workdir !== undefined ? { WorkingDir: options.workdir } : {}),
    ...(options.env !== undefined && options.env.length > 0 ? { Env: options.env } : {}),
  });
  const stream = await exec.start({ hijack: true, stdin: options.dialog !== undefined });
  const tail = new Tail(options.tailBytes);
  const sink = new PassThrough();
  const write = (text: string) => {
    stream.write(text);
  };
  sink.on('data', (chunk: Buffer) => {
    tail.push(chunk);
    options.dialog?.(tail.head(), write);
  });
  docker.modem.demuxStream(stream, sink, sink);
  await new Promise<void>((resolve, reject) => {
    stream.on('end', resolve);
    stream.on('close', resolve);
    stream.on('error', reject);
  });
  // The stream can end a moment before the engine records the exit code.
  for (let attempt = 0; ; attempt++) {
    const info = await exec.inspect();
    if (!info.Running && info.ExitCode !== null) return { exitCode: info.ExitCode, output: tail.text(), head: tail.head() };
    if (attempt >= 200) return { exitCode: -1, output: tail.text(), head: tail.head() };
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}
