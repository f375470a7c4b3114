import { z } from 'zod';

/** Limits every run gets unless a request lowers or (up to the caps) raises the time and memory. */
export const limitsSection = z.strictObject({
  cpuMs: z.number().int().min(10).default(2_000).describe('CPU time per test (assert: per assert; stdio: per program run)'),
  memoryMb: z.number().int().min(16).default(512).describe('Address space a run may add above the warm interpreter'),
  outputBytes: z.number().int().min(1_024).default(1 << 20).describe('Captured stdout (stdio) or one returned value; past it the run stops'),
  processes: z.number().int().min(2).default(16).describe('Processes and threads of the slot uid (RLIMIT_NPROC)'),
  fileMb: z.number().int().min(1).default(16).describe('Largest file a run may write (RLIMIT_FSIZE)'),
  openFiles: z.number().int().min(16).default(64).describe('Open file descriptors (RLIMIT_NOFILE)'),
  tmpfsMb: z.number().int().min(1).default(64).describe('Size of each slot\'s tmpfs working directory'),
  maxCpuMs: z.number().int().min(10).default(20_000).describe('Largest per-test CPU time a label may ask for'),
  maxMemoryMb: z.number().int().min(16).default(4_096).describe('Largest memory a label may ask for'),
});

/** `sandbox:` in the config file. Present (even as `{}`) → the sandbox starts with the service. */
export const sandboxConfigSection = z.strictObject({
  workers: z
    .union([z.literal('auto'), z.number().int().min(1).max(16)])
    .default('auto')
    .describe('Warm sandbox slots; "auto" = available CPU cores'),
  python: z.string().min(1).default('/usr/bin/python3').describe('Absolute path of the interpreter (never a PATH shim)'),
  bwrap: z.string().min(1).default('/usr/bin/bwrap').describe('Absolute path of bubblewrap'),
  mode: z
    .enum(['auto', 'root', 'user'])
    .default('auto')
    .describe('"root": candidates run as per-slot host uids (Verdict runs as root); "user": unprivileged, through user namespaces; "auto": root when Verdict runs as root'),
  uidBase: z.number().int().min(1_000).max(4_000_000_000).default(200_000).describe('First host uid of the per-slot uids'),
  recycleAfter: z.number().int().min(1).default(2_000).describe('Jobs a slot serves before it is replaced'),
  cgroups: z.enum(['auto', 'off']).default('auto').describe('Per-slot cgroup (pids, memory) where writable'),
  limits: limitsSection.default(limitsSection.parse({})),
});

export type SandboxConfigSection = z.output<typeof sandboxConfigSection>;
export type SandboxLimitDefaults = z.output<typeof limitsSection>;
