import { DockerWorkspace } from '../../services/workspace/docker';
import { terminalConfigSection } from '../../services/workspace';
import { describeWorkspaceBackend } from './contract';
import { BASE_IMAGE, engineSocket, startEngine, type Engine } from './engine';

const socket = engineSocket();
let engine: Engine;
beforeAll(async () => {
  engine = await startEngine(socket);
}, 600_000);
afterAll(() => engine?.stop());

/** The docker backend in fresh mode on the real engine: tasks without an image of their own run in the base image. */
export function dockerConfig(extra: Record<string, unknown> = {}) {
  return terminalConfigSection.parse({
    backend: 'docker',
    maxWorkspaceMb: 2,
    docker: { endpoints: { local: { socketPath: socket, maxConcurrency: 2 } }, defaultImage: BASE_IMAGE, ...extra },
  });
}

describeWorkspaceBackend('docker (fresh containers, podman)', () => new DockerWorkspace(dockerConfig()), { diskFull: false, rootTests: true });
