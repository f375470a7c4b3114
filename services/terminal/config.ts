import { z } from 'zod';

/**
 * One Docker Engine API endpoint (Docker, or Podman's `podman system service`): a unix socket, or
 * TCP with optional TLS, as judge endpoints name their servers.
 */
const engineEndpoint = z
  .strictObject({
    socketPath: z.string().min(1).optional().describe('Unix socket of the engine (/run/docker.sock, /run/podman/podman.sock)'),
    host: z.string().min(1).optional().describe('TCP host of the engine'),
    port: z.number().int().min(1).max(65535).optional().describe('TCP port of the engine'),
    tls: z
      .strictObject({
        ca: z.string().min(1).describe('CA certificate file (PEM) the engine\'s certificate is checked against'),
        cert: z.string().min(1).describe('Client certificate file (PEM)'),
        key: z.string().min(1).describe('Client key file (PEM)'),
      })
      .optional()
      .describe('Mutual TLS to a TCP engine (dockerd --tlsverify)'),
    maxConcurrency: z.number().int().min(1).max(256).default(4).describe('Test runs at once on this engine'),
    hostRead: z
      .union([z.literal('auto'), z.literal(false)])
      .default('auto')
      .describe('Read the reward files of a paused container from the engine\'s storage on this host (its MergedDir, checked by a nonce; else the archive API): "auto", or false for a remote engine or to always use the archive API'),
  })
  .refine((e) => (e.socketPath === undefined) !== (e.host === undefined), 'expected exactly one of socketPath, host')
  .refine((e) => e.tls === undefined || e.host !== undefined, 'tls needs host');

export const dockerConfigSection = z.strictObject({
  endpoints: z
    .record(z.string().regex(/^[a-z][a-z0-9_]*$/, 'expected a lower-case name'), engineEndpoint)
    .refine((r) => Object.keys(r).length > 0, 'expected at least one endpoint')
    .describe('Named engine endpoints; a sample\'s metadata.environment.endpoint names one'),
  freshEndpoint: z.string().optional().describe('The endpoint fresh containers (metadata.workspace) start on; default: the only endpoint'),
  afterShared: z.enum(['unpause', 'remove']).default('unpause').describe('The episode\'s container once its tests ran: unpaused for the caller, or removed'),
  episodeProcesses: z
    .enum(['stop', 'keep'])
    .default('stop')
    .describe('Processes the episode left running in a shared container: "stop" (killed before the tests, reported), "keep" (for tasks whose tests need a service the episode started; reported)'),
  tamper: z
    .enum(['report', 'zero'])
    .default('zero')
    .describe('Changes the episode made to verdict-deciding paths (interpreters, site-packages, test runners, shells, /tests, /logs/verifier): "report" in details, or "zero": reward 0 environment_tampered'),
  network: z.boolean().default(false).describe('Fresh containers get a network (else none unless the task allows it)'),
  defaultImage: z.string().min(1).optional().describe('Image of fresh containers for a task that names no docker_image and has no image built by `verdict tasks build`'),
  imagePrefix: z.string().regex(/^[a-z0-9][a-z0-9._/:-]*$/).default('localhost/verdict-task').describe('Tag prefix of images `verdict tasks build` makes: <prefix>-<task id>:latest'),
});
export type DockerConfigSection = z.output<typeof dockerConfigSection>;

/** `terminal:` in the config file: the workspace backend of the `terminal` verifier. */
export const terminalConfigSection = z
  .strictObject({
    backend: z.enum(['bwrap', 'docker']).default('bwrap').describe('Where the tests run: "bwrap", a fresh bubblewrap sandbox on this machine (root only); "docker", the episode\'s container or a fresh one from the task\'s image, through the Docker Engine API'),
    taskDir: z.string().min(1).optional().describe('Folder of Harbor tasks, one per id: <taskDir>/<id>/tests/test.sh, <taskDir>/<id>/task.toml'),
    workspaceRoot: z.string().min(1).optional().describe('Folder that metadata.workspace.path is relative to (a workspace folder, .tar or .tar.gz)'),
    workers: z.union([z.literal('auto'), z.number().int().min(1).max(64)]).default('auto').describe('Test runs at once; "auto" = available CPU cores'),
    uidBase: z.number().int().min(1_000).max(4_000_000_000).default(300_000).describe('First host uid of the runs\' unprivileged test users'),
    bwrap: z.string().min(1).default('/usr/bin/bwrap').describe('Absolute path of bubblewrap'),
    maxWorkspaceMb: z.number().int().min(1).default(512).describe('Largest unpacked workspace (bytes of its files)'),
    maxMembers: z.number().int().min(1).default(20_000).describe('Most files, folders and links in a workspace archive'),
    docker: dockerConfigSection.optional().describe('The docker backend: engine endpoints and policies (needed when backend is "docker")'),
    defaults: z
      .strictObject({
        timeoutSec: z.number().positive().default(600).describe('[verifier].timeout_sec when task.toml has none (Harbor\'s default)'),
        cpus: z.number().positive().default(1).describe('[environment].cpus when task.toml has none'),
        memoryMb: z.number().int().min(64).default(2048).describe('[environment].memory_mb when task.toml has none'),
        storageMb: z.number().int().min(16).default(1024).describe('[environment].storage_mb when task.toml has none'),
        workdir: z
          .string()
          .regex(/^\/[A-Za-z0-9_./-]+$/)
          .refine((p) => !p.split('/').includes('..'), 'expected no ".."')
          .default('/app')
          .describe('Where test.sh runs when neither task.toml [environment] workdir nor environment/Dockerfile WORKDIR says (docker: when the image has no WORKDIR either)'),
      })
      .default({ timeoutSec: 600, cpus: 1, memoryMb: 2048, storageMb: 1024, workdir: '/app' }),
  })
  .refine((t) => t.backend !== 'docker' || t.docker !== undefined, { message: 'backend "docker" needs a docker: section with its endpoints', path: ['docker'] });
export type TerminalConfigSection = z.output<typeof terminalConfigSection>;
