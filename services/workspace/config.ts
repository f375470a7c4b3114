import { z } from 'zod';

/** `terminal:` in the config file: the workspace backend of the `terminal` verifier. */
export const terminalConfigSection = z.strictObject({
  backend: z.literal('bwrap').default('bwrap').describe('Where the tests run: "bwrap", a fresh bubblewrap sandbox on this machine (root only)'),
  taskDir: z.string().min(1).optional().describe('Folder of Harbor tasks, one per id: <taskDir>/<id>/tests/test.sh, <taskDir>/<id>/task.toml'),
  workspaceRoot: z.string().min(1).optional().describe('Folder that metadata.workspace.path is relative to (a workspace folder, .tar or .tar.gz)'),
  workers: z.union([z.literal('auto'), z.number().int().min(1).max(64)]).default('auto').describe('Test runs at once; "auto" = available CPU cores'),
  uidBase: z.number().int().min(1_000).max(4_000_000_000).default(300_000).describe('First host uid of the runs\' unprivileged test users'),
  bwrap: z.string().min(1).default('/usr/bin/bwrap').describe('Absolute path of bubblewrap'),
  maxWorkspaceMb: z.number().int().min(1).default(512).describe('Largest unpacked workspace (bytes of its files)'),
  maxMembers: z.number().int().min(1).default(20_000).describe('Most files, folders and links in a workspace archive'),
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
        .describe('bwrap: where test.sh runs when neither task.toml [environment] workdir nor environment/Dockerfile WORKDIR says'),
    })
    .default({ timeoutSec: 600, cpus: 1, memoryMb: 2048, storageMb: 1024, workdir: '/app' }),
});
export type TerminalConfigSection = z.output<typeof terminalConfigSection>;
