import { PassThrough } from 'node:stream';
import type Docker from 'dockerode';

/** What one exec in a container gave: its exit code and the tail of its output (stdout and stderr together). */
export interface ExecResult {
  exitCode: number;
  /** The tail of its output, and its first bytes (where a script's own first line stands). */
  output: string;
  head: string;
}

/** An exec whose stream has ended; its exit code, which the engine records a moment later, still to be asked. */
export interface EndedExec {
  output: string;
  head: string;
  exitCode: () => Promise<number>;
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
 * Runs `cmd` through the engine's exec API and waits for it to end. When the exec must be cut
 * short (wall time, cancel) the engine has no "kill this exec": the caller kills its processes
 * with another exec, which ends this one's stream.
 */
export async function execIn(docker: Docker, container: Docker.Container, options: ExecOptions): Promise<ExecResult> {
  const ended = await execEnded(docker, container, options);
  return { exitCode: await ended.exitCode(), output: ended.output, head: ended.head };
}

interface ExecOptions {
  cmd: string[];
  user?: string;
  workdir?: string;
  env?: string[];
  tailBytes: number;
  /** Whether the exec gets a stdin, which `started` and `dialog` write to. */
  stdin?: boolean;
  /** Called once the exec has started, with a writer to its stdin. */
  started?: (write: (text: string) => void) => void;
  /** Called with the output's head as it grows, and a writer to the exec's stdin. */
  dialog?: (head: string, write: (text: string) => void) => void;
}

/**
 * `execIn` up to the end of the exec's stream, its exit code left to ask: a caller with engine
 * work to do the moment the stream ends (the pause) asks for both at once, one round trip fewer.
 */
export async function execEnded(
  docker: Docker,
  container: Docker.Container,
  options: ExecOptions,
): Promise<EndedExec> {
  const stdin = options.stdin === true;
  const exec = await container.exec({
    Cmd: options.cmd,
    ...(stdin ? { AttachStdin: true } : {}),
    AttachStdout: true,
    AttachStderr: true,
    ...(options.user !== undefined ? { User: options.user } : {}),
    ...(options.workdir !== undefined ? { WorkingDir: options.workdir } : {}),
    ...(options.env !== undefined && options.env.length > 0 ? { Env: options.env } : {}),
  });
  const stream = await exec.start({ hijack: true, stdin });
  const tail = new Tail(options.tailBytes);
  const sink = new PassThrough();
  const write = (text: string) => {
    if (!stream.destroyed && stream.writable) stream.write(text);
  };
  sink.on('data', (chunk: Buffer) => {
    tail.push(chunk);
    options.dialog?.(tail.head(), write);
  });
  docker.modem.demuxStream(stream, sink, sink);
  options.started?.(write);
  await new Promise<void>((resolve, reject) => {
    stream.on('end', resolve);
    stream.on('close', resolve);
    // A script that ended without reading what was written to its stdin: the engine closed it.
    stream.on('error', (error: NodeJS.ErrnoException) => (error.code === 'EPIPE' || error.code === 'ECONNRESET' ? resolve() : reject(error)));
  });
  // The stream can end a moment before the engine records the exit code.
  const exitCode = async (): Promise<number> => {
    for (let attempt = 0; ; attempt++) {
      const info = await exec.inspect();
      if (!info.Running && info.ExitCode !== null) return info.ExitCode;
      if (attempt >= 200) return -1;
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  };
  return { output: tail.text(), head: tail.head(), exitCode };
}
