import { execFile, execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import type { JsonObject } from '../../core/json';
import type { Outcome } from '../../core/sample';
import type { Services } from '../../core/verifier';
import { BwrapWorkspace, terminalConfigSection } from '../../services/terminal';
import { DockerWorkspace } from '../../services/terminal/docker';
import { BASE_IMAGE, SuiteEngine } from './engine';
import { scoreTerminal } from './helpers';

/**
 * The shapes of real public Harbor tasks (test/fixtures/terminal/harbor-real, SOURCE.md), each
 * solved (its solution/solve.sh run in a container of its image, as the agent would) and unsolved
 * (the same container untouched), scored on both backends: bwrap and docker fresh with the
 * episode's changes (the engine's diff, archived from `/`), docker shared with the container itself.
 * Every outcome is right or honest: solved 1, unsolved 0, or ABORTED naming what the environment
 * lacks — never a quiet 0 for a solved episode.
 */
const TASKS = path.join(__dirname, '..', '..', '..', 'test', 'fixtures', 'terminal', 'harbor-real');
const VERDICT = path.join(__dirname, '..', '..', '..', 'bin', 'verdict.js');
const run = promisify(execFile);
/** The public base images the tasks name, stood in for by the Debian base image (no registry is reachable). */
const STAND_INS = ['ubuntu:24.04', 'python:3.12-slim', 'python:3.11-slim', 'python:3.13-slim-bookworm', 'debian:bookworm-slim'];

type Expect = string; // "1", "0" or "ABORTED <reason prefix>"
/** Per task: [solved, unsolved] on bwrap, docker fresh, docker shared (null: no image to start). */
const EXPECTED: Record<string, { bwrap: [Expect, Expect]; fresh: [Expect, Expect]; shared: [Expect, Expect] | null }> = {
  'alpine-apk': { bwrap: ['ABORTED command_not_found: apk', 'ABORTED command_not_found: apk'], fresh: ['ABORTED image_missing', 'ABORTED image_missing'], shared: null },
  'data-results-env': { bwrap: ['1', '0'], fresh: ['1', '0'], shared: ['1', '0'] },
  'episode-service': { bwrap: ['ABORTED episode_services_unavailable', 'ABORTED episode_services_unavailable'], fresh: ['ABORTED episode_services_unavailable', 'ABORTED episode_services_unavailable'], shared: ['1', '0'] },
  'hello-world': { bwrap: ['1', '0'], fresh: ['1', '0'], shared: ['1', '0'] },
  'home-user-tmp': { bwrap: ['1', '0'], fresh: ['1', '0'], shared: ['1', '0'] },
  'log-report': { bwrap: ['ABORTED module_not_found: python module ctrf', 'ABORTED module_not_found: python module ctrf'], fresh: ['ABORTED image_missing', 'ABORTED image_missing'], shared: null },
  'multi-reward': { bwrap: ['1', '0'], fresh: ['1', '0'], shared: ['1', '0'] },
  'remove-secret': { bwrap: ['1', '0'], fresh: ['1', '0'], shared: ['1', '0'] },
  'relative-workdir': { bwrap: ['1', '0'], fresh: ['1', '0'], shared: ['1', '0'] },
  'results-default-verifier': { bwrap: ['1', '0'], fresh: ['1', '0'], shared: ['1', '0'] },
  'run-tests-no-shebang': { bwrap: ['1', '0'], fresh: ['1', '0'], shared: ['1', '0'] },
  'tb2-uv-pytest': { bwrap: ['ABORTED network_unavailable', 'ABORTED network_unavailable'], fresh: ['ABORTED network_unavailable', 'ABORTED network_unavailable'], shared: ['ABORTED network_unavailable', 'ABORTED network_unavailable'] },
  'usr-local-script': { bwrap: ['ABORTED episode_files_unavailable', '0'], fresh: ['1', '0'], shared: ['1', '0'] },
  'workspace-pytest': { bwrap: ['1', '0'], fresh: ['1', '0'], shared: ['1', '0'] },
};

const engine = SuiteEngine.forThisFile();
const socket = engine.socket;
let bwrap: Services;
let docker: Services;
beforeAll(() => {
  for (const name of STAND_INS) engine.podman(['tag', BASE_IMAGE, `docker.io/library/${name}`]);
  bwrap = { terminal: new BwrapWorkspace(terminalConfigSection.parse({ taskDir: TASKS, workers: 1 })) };
  docker = { terminal: engine.track(new DockerWorkspace(terminalConfigSection.parse({ backend: 'docker', taskDir: TASKS, docker: { endpoints: { local: { socketPath: socket } } } }))) };
});

/**
 * "1", "0", or "ABORTED <reason> (<details>)" — what EXPECTED compares with (an ABORTED expectation
 * matches the start): a mismatch then says what the engine answered, not only its reason.
 */
const verdict = (o: Outcome): string => (o.status === 'OK' ? String(o.reward) : `${o.status} ${o.reason ?? ''}${o.status === 'ABORTED' ? ` (${JSON.stringify(o.details)})` : ''}`);

/**
 * The episode's changes in a container (the engine's diff, as `podman diff` lists them), archived
 * from `/` in the container: what was added or changed, and a whiteout (`dir/.wh.name`, an OCI
 * layer's deletion) for what was deleted, made in a staging folder of the container.
 */
function changeSet(container: string): string {
  const noise = /^\/(proc|sys|dev|run)(\/|$)|^\/etc\/(hosts|hostname|resolv\.conf)$/;
  const diff = engine
    .podman(['diff', container])
    .split('\n')
    .filter((line) => /^[ACD] \//.test(line) && !noise.test(line.slice(2)));
  const paths = diff.filter((line) => !line.startsWith('D')).map((line) => line.slice(3));
  const whiteouts = diff.filter((line) => line.startsWith('D')).map((line) => line.slice(3).replace(/([^/]+)$/, '.wh.$1'));
  if (paths.length + whiteouts.length === 0) return Buffer.alloc(1024).toString('base64'); // an empty tar: two zero blocks
  const staging = '/tmp/.verdict-whiteouts';
  for (const w of whiteouts) engine.podman(['exec', '-u', '0', container, 'sh', '-c', 'mkdir -p "$(dirname "$1")" && touch "$1"', 'sh', `${staging}/${w}`]);
  const tar = execFileSyncBuffer(['exec', '-u', '0', container, 'tar', '--no-recursion', '-cf', '-', '-C', '/', ...paths, ...(whiteouts.length ? ['-C', staging, ...whiteouts] : [])]);
  return tar.toString('base64');
}

function execFileSyncBuffer(args: string[]): Buffer {
  // engine.podman decodes as text; the archive is binary.
  const root = process.env.VERDICT_PODMAN_ROOT ?? '/var/tmp/verdict-podman';
  return execFileSync('podman', ['--root', path.join(root, 'root'), '--runroot', path.join(root, 'run'), ...args], { maxBuffer: 1 << 28, env: { ...process.env, CONTAINERS_CONF: path.join(path.dirname(socket), 'containers.conf') } });
}

describe('terminal: the shapes of real public Harbor tasks, solved and unsolved, on bwrap and docker', () => {
  it('verdict tasks build builds what it can offline and names why the rest failed; every outcome is right or honest on every backend', async () => {
    const built = await run('node', [VERDICT, 'tasks', 'build', TASKS, '--socket', socket]).catch((e: { code: number; stdout: string }) => e);
    expect(built).toMatchObject({ code: 1, stdout: expect.stringMatching(/^alpine-apk\tFAILED: .*alpine:3\.19/m) });
    expect(built.stdout).toMatch(/^log-report\tFAILED: .*pip install/m);
    expect(built.stdout).toMatch(/^tb2-uv-pytest\tskipped: task.toml names docker_image/m);
    // A task that names a prebuilt image (Terminal-Bench 2) gets it built from its own Dockerfile here.
    engine.podman(['build', '-q', '-t', 'docker.io/example/tb2-uv-pytest:20251031', path.join(TASKS, 'tb2-uv-pytest', 'environment')]);

    const seen: Record<string, unknown> = {};
    for (const id of readdirSync(TASKS).filter((name) => name in EXPECTED)) {
      const named = /docker_image\s*=\s*"([^"]+)"/.exec(readFileSync(path.join(TASKS, id, 'task.toml'), 'utf8'))?.[1];
      const image = named ? `docker.io/${named}` : `localhost/verdict-task-${id}:latest`;
      const hasImage = (() => {
        try {
          engine.podman(['image', 'exists', image]);
          return true;
        } catch {
          return false;
        }
      })();
      const label = { taskId: id };
      const containers: string[] = [];
      try {
        let solved = Buffer.alloc(1024).toString('base64');
        let unsolved = solved;
        if (hasImage) {
          for (let k = 0; k < 2; k++) containers.push(engine.podman(['run', '-d', '--network', 'none', image, 'sleep', 'infinity']).trim());
          engine.podman(['cp', path.join(TASKS, id, 'solution', 'solve.sh'), `${containers[0]}:/tmp/solve.sh`]);
          // As the agent would: the image's user, in its workdir.
          engine.podman(['exec', containers[0]!, 'bash', '-c', 'bash /tmp/solve.sh; rm -f /tmp/solve.sh']);
          solved = changeSet(containers[0]!);
          unsolved = changeSet(containers[1]!);
        }
        const score = async (services: Services, workspace: JsonObject) => verdict(await scoreTerminal(label, workspace, services));
        const row = {
          bwrap: [await score(bwrap, { workspace: { tar: solved, root: '/' } }), await score(bwrap, { workspace: { tar: unsolved, root: '/' } })],
          fresh: [await score(docker, { workspace: { tar: solved, root: '/' } }), await score(docker, { workspace: { tar: unsolved, root: '/' } })],
          shared: hasImage ? [await score(docker, { environment: { endpoint: 'local', container: containers[0]! } }), await score(docker, { environment: { endpoint: 'local', container: containers[1]! } })] : null,
        };
        seen[id] = row;
      } finally {
        for (const c of containers) engine.podman(['rm', '-f', '-t', '0', c]);
      }
    }
    const matches = (got: string, want: Expect) => (want.startsWith('ABORTED') ? got.startsWith(want) : got === want);
    const mismatched = Object.entries(EXPECTED).filter(([id, want]) => {
      const got = seen[id] as { bwrap: string[]; fresh: string[]; shared: string[] | null } | undefined;
      if (!got) return true;
      const pairs = (a: string[] | null, b: [Expect, Expect] | null) => (a === null || b === null ? a === b : matches(a[0]!, b[0]) && matches(a[1]!, b[1]));
      return !(pairs(got.bwrap, want.bwrap) && pairs(got.fresh, want.fresh) && pairs(got.shared, want.shared));
    });
    expect(mismatched.map(([id]) => ({ id, got: seen[id] }))).toEqual([]);
  }, 600_000);
});
