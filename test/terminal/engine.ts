import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Docker from 'dockerode';

/**
 * A real Podman engine for the docker backend's tests: `podman system service` serving the Docker
 * Engine API on a unix socket this test file owns, with the containers.conf this machine needs
 * (no rlimits raised, runc), storage shared by the test files under $VERDICT_PODMAN_ROOT so that
 * the base image (deploy/task-base-image.sh) is imported once.
 */
export const BASE_IMAGE = 'localhost/verdict-task-base:bookworm';
const ROOT = process.env.VERDICT_PODMAN_ROOT ?? '/var/tmp/verdict-podman';
const REPO = path.join(__dirname, '..', '..', '..');

export interface Engine {
  socket: string;
  docker: Docker;
  /** The podman CLI on the same storage. */
  podman(args: string[]): string;
  stop(): Promise<void>;
}

/** A socket path for an engine this file starts later (describe blocks build their ports first). */
export function engineSocket(): string {
  return path.join(mkdtempSync(path.join(tmpdir(), 'verdict-engine-')), 'engine.sock');
}

/** `socket`: a unix socket path, or `tcp:127.0.0.1:PORT` for the API over TCP (no TLS: loopback only). */
export async function startEngine(socket: string): Promise<Engine> {
  const tcp = /^tcp:([\d.]+):(\d+)$/.exec(socket);
  const dir = tcp ? mkdtempSync(path.join(tmpdir(), 'verdict-engine-')) : path.dirname(socket);
  const conf = path.join(dir, 'containers.conf');
  writeFileSync(conf, '[containers]\ndefault_ulimits = []\n\n[engine]\nruntime = "runc"\n');
  const env = { ...process.env, CONTAINERS_CONF: conf };
  const global = ['--root', path.join(ROOT, 'root'), '--runroot', path.join(ROOT, 'run')];
  execFileSync('bash', [path.join(REPO, 'deploy', 'task-base-image.sh'), ...global], { env, stdio: ['ignore', 'ignore', 'inherit'] });
  const service: ChildProcess = spawn('podman', [...global, 'system', 'service', '--time=0', tcp ? socket : `unix://${socket}`], { env, stdio: 'ignore' });
  const docker = tcp ? new Docker({ host: tcp[1]!, port: Number(tcp[2]), protocol: 'http' }) : new Docker({ socketPath: socket });
  for (let attempt = 0; ; attempt++) {
    try {
      await docker.ping();
      break;
    } catch (error) {
      if (attempt > 300 || service.exitCode !== null) throw new Error(`podman system service did not answer on ${socket}: ${String(error)}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
  return {
    socket,
    docker,
    podman: (args) => execFileSync('podman', [...global, ...args], { env, encoding: 'utf8' }),
    stop: async () => {
      service.kill('SIGTERM');
      await new Promise((resolve) => (service.exitCode !== null ? resolve(null) : service.once('exit', resolve)));
    },
  };
}

/**
 * The engine of one test file: `podman system service` started before its tests; after them the
 * backends it tracked closed (the fresh containers they remove off the result path, removed), the
 * containers it tracked removed, and the service stopped.
 */
export class SuiteEngine {
  readonly socket = engineSocket();
  private started: Engine | null = null;
  private readonly ports: Array<{ close(): Promise<void> }> = [];
  private readonly containers: Docker.Container[] = [];

  /** Registers the file's beforeAll and afterAll: call it at the top of a test file. */
  static forThisFile(): SuiteEngine {
    const suite = new SuiteEngine();
    beforeAll(async () => {
      suite.started = await startEngine(suite.socket);
    }, 600_000);
    afterAll(async () => {
      for (const port of suite.ports) await port.close();
      for (const c of suite.containers) await c.remove({ force: true }).catch(() => {});
      await suite.started?.stop();
    });
    return suite;
  }

  private get engine(): Engine {
    if (!this.started) throw new Error('the engine starts in beforeAll: use it inside a test or hook');
    return this.started;
  }
  get docker(): Docker {
    return this.engine.docker;
  }
  podman(args: string[]): string {
    return this.engine.podman(args);
  }
  /** A backend closed after the file's tests. */
  track<P extends { close(): Promise<void> }>(port: P): P {
    this.ports.push(port);
    return port;
  }
  /** A container removed after the file's tests. */
  remove(container: Docker.Container): Docker.Container {
    this.containers.push(container);
    return container;
  }
}
