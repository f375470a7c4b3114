import { readFileSync } from 'node:fs';
import type Docker from 'dockerode';
import { WorkspaceError } from '../../../core/ports/terminal';
import type { DockerConfigSection } from '../config';

/**
 * dockerode, loaded when the docker backend opens its endpoints: it brings grpc-js and protobufjs
 * (BuildKit sessions), ~150 ms of start-up that a run without the backend (`verdict score` on a
 * JSONL file) does not need.
 */
function dockerode(): typeof Docker {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return require('dockerode') as typeof Docker;
}

/** One Docker Engine API client per configured endpoint. */
export function engineClients(section: DockerConfigSection): Map<string, Docker> {
  const clients = new Map<string, Docker>();
  const Docker = dockerode();
  for (const [name, endpoint] of Object.entries(section.endpoints)) {
    if (endpoint.socketPath !== undefined) clients.set(name, new Docker({ socketPath: endpoint.socketPath }));
    else {
      const tls = endpoint.tls;
      clients.set(
        name,
        new Docker({
          host: endpoint.host!,
          port: endpoint.port ?? (tls ? 2376 : 2375),
          protocol: tls ? 'https' : 'http',
          ...(tls ? { ca: readFileSync(tls.ca), cert: readFileSync(tls.cert), key: readFileSync(tls.key) } : {}),
        }),
      );
    }
  }
  return clients;
}

interface EngineFailure {
  statusCode?: number;
  code?: string;
  message?: string;
}

/**
 * An engine call's failure as the ABORTED reason it is: the engine unreachable, the container or
 * image missing (404), or any other refusal. `what` names the thing the call needed.
 */
export function engineError(error: unknown, endpoint: string, what: string): WorkspaceError {
  if (error instanceof WorkspaceError) return error;
  const e = (error ?? {}) as EngineFailure;
  const message = (e.message ?? String(error)).replace(/\s+/g, ' ').trim().slice(0, 300);
  if (e.code === 'ECONNREFUSED' || e.code === 'ENOENT' || e.code === 'EACCES' || e.code === 'ECONNRESET' || e.code === 'ETIMEDOUT' || e.code === 'EHOSTUNREACH')
    return new WorkspaceError('engine_unreachable', `engine endpoint "${endpoint}" is unreachable (${e.code}): ${message}`);
  // Podman answers some calls on a missing container with 500 and "no such container".
  if (e.statusCode === 404 || /no such (container|image)/i.test(message)) return new WorkspaceError(what.startsWith('image') ? 'image_missing' : 'environment_missing', `${what} does not exist on engine endpoint "${endpoint}": ${message}`);
  if (e.statusCode === 409) return new WorkspaceError('environment_unavailable', `${what} on engine endpoint "${endpoint}": ${message}`);
  return new WorkspaceError('engine_failed', `${what} on engine endpoint "${endpoint}": ${message}`);
}
