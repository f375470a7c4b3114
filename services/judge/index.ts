import { mkdirSync } from 'node:fs';
import path from 'node:path';
import type { Registry } from 'prom-client';
import { JudgeCache } from './cache';
import type { JudgePort } from '../../core/ports/judge';
import { JudgeClient } from './client';
import { resolveEndpoints, type JudgeConfigSection } from './config';
import { judgeMetrics } from './metrics';

export { JudgeCache } from './cache';
export { JudgeClient } from './client';
export { judgeConfigSection, resolveEndpoints, type EndpointSettings, type JudgeConfigSection } from './config';
export { judgeMetrics, type JudgeMetrics } from './metrics';

export interface OpenedJudges {
  judges: ReadonlyMap<string, JudgePort>;
  cache: JudgeCache;
  close(): void;
}

export type OpenJudgesResult = { ok: true; value: OpenedJudges } | { ok: false; errors: string[] };

/**
 * Builds one client per configured endpoint over one shared SQLite cache, with metrics on
 * `registry` (prom-client's default registry when omitted). Errors name the key under `root`
 * (`verdict.yaml.judge.endpoints.search.url: …`).
 */
export function openJudges(
  section: JudgeConfigSection,
  options: { env?: NodeJS.ProcessEnv; registry?: Registry; root?: string } = {},
): OpenJudgesResult {
  const root = options.root ?? 'judge';
  const resolved = resolveEndpoints(section, options.env ?? process.env, root);
  if (!resolved.ok) return resolved;
  const cache = openCache(section.cachePath, `${root}.cachePath`);
  if (!cache.ok) return cache;
  const metrics = judgeMetrics(options.registry);
  const judges = new Map<string, JudgePort>(resolved.endpoints.map((e) => [e.name, new JudgeClient(e, metrics, cache.cache)]));
  return { ok: true, value: { judges, cache: cache.cache, close: () => cache.cache.close() } };
}

/** The cache file, its parent folders created first; a file that still cannot be opened names the key. */
function openCache(file: string, key: string): { ok: true; cache: JudgeCache } | { ok: false; errors: string[] } {
  try {
    if (file !== ':memory:') mkdirSync(path.dirname(path.resolve(file)), { recursive: true });
    return { ok: true, cache: new JudgeCache(file) };
  } catch (error) {
    return { ok: false, errors: [`${key}: cannot open ${file} (${(error as Error).message})`] };
  }
}
