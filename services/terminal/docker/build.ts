import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import type Docker from 'dockerode';
import { parse as parseToml } from 'smol-toml';

/**
 * `verdict tasks build`: each Harbor task's `environment/` folder built through the engine's build
 * API (`POST /build`, the folder as the build context) and tagged with the name the docker backend
 * looks for (`taskImageTag`), so fresh containers start from the task's own image, as the recipe
 * bakes its templates ahead of the rollouts.
 */

/** The tag of a task's built image: `<prefix>-<id>:latest`, the id made a valid image name. */
export function taskImageTag(prefix: string, taskId: string): string {
  return `${prefix}-${taskId.toLowerCase().replace(/[^a-z0-9._-]/g, '-')}:latest`;
}

export interface BuildTarget {
  id: string;
  dir: string;
}

/** A task folder (it has environment/ or task.toml), or a folder of them. */
export function buildTargets(folder: string): BuildTarget[] {
  const isTask = (dir: string) => existsSync(path.join(dir, 'environment')) || existsSync(path.join(dir, 'task.toml'));
  if (isTask(folder)) return [{ id: path.basename(path.resolve(folder)), dir: folder }];
  return readdirSync(folder, { withFileTypes: true })
    .filter((e) => e.isDirectory() && isTask(path.join(folder, e.name)))
    .map((e) => ({ id: e.name, dir: path.join(folder, e.name) }))
    .sort((a, b) => a.id.localeCompare(b.id));
}

export type BuildOutcome = { kind: 'built'; tag: string } | { kind: 'skipped'; why: string } | { kind: 'failed'; error: string };

/** Builds one task's image; never throws for the task's own faults (they are `failed`, naming the step). */
export async function buildTaskImage(docker: Docker, target: BuildTarget, prefix: string): Promise<BuildOutcome> {
  const environment = path.join(target.dir, 'environment');
  const tomlPath = path.join(target.dir, 'task.toml');
  if (existsSync(tomlPath)) {
    try {
      const toml = parseToml(readFileSync(tomlPath, 'utf8')) as { environment?: { docker_image?: unknown } };
      const image = toml.environment?.docker_image;
      if (typeof image === 'string' && image !== '') return { kind: 'skipped', why: `task.toml names docker_image ${image}` };
    } catch (error) {
      return { kind: 'failed', error: `task.toml: ${(error as Error).message.split('\n')[0]}` };
    }
  }
  if (!existsSync(path.join(environment, 'Dockerfile')) || !statSync(environment).isDirectory()) return { kind: 'skipped', why: 'no environment/Dockerfile' };
  const tag = taskImageTag(prefix, target.id);
  try {
    const stream = await docker.buildImage({ context: environment, src: listFiles(environment) }, { t: tag, dockerfile: 'Dockerfile', rm: true, forcerm: true });
    const messages = await new Promise<Array<{ error?: string; errorDetail?: { message?: string } }>>((resolve, reject) =>
      docker.modem.followProgress(stream, (error: Error | null, output: unknown[]) => (error ? reject(error) : resolve(output as never))),
    );
    const failure = messages.find((m) => m.error !== undefined || m.errorDetail !== undefined);
    if (failure) return { kind: 'failed', error: (failure.errorDetail?.message ?? failure.error ?? 'build failed').trim().slice(0, 500) };
    await docker.getImage(tag).inspect();
    return { kind: 'built', tag };
  } catch (error) {
    return { kind: 'failed', error: (error as Error).message.replace(/\s+/g, ' ').slice(0, 500) };
  }
}

/** Every file of the build context, relative (dockerode packs exactly these). */
function listFiles(dir: string, sub = ''): string[] {
  const files: string[] = [];
  for (const entry of readdirSync(path.join(dir, sub), { withFileTypes: true })) {
    const rel = sub === '' ? entry.name : `${sub}/${entry.name}`;
    if (entry.isDirectory()) files.push(...listFiles(dir, rel));
    else files.push(rel);
  }
  return files;
}
