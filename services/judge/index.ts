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

export type OpenJudgesResult = { ok: true; value: OpenedJudges } | { ok: false; error: string };

/**
 * Builds one client per configured endpoint over one shared SQLite cache, with metrics on
 * `registry` (prom-client's default registry when omitted).
 */
export function openJudges(
  section: JudgeConfigSection,
  options: { env?: NodeJS.ProcessEnv; registry?: Registry } = {},
): OpenJudgesResult {
  const resolved = resolveEndpoints(section, options.env ?? process.env);
  if (!resolved.ok) return resolved;
  const cache = new JudgeCache(section.cachePath);
  const metrics = judgeMetrics(options.registry);
  const judges = new Map<string, JudgePort>(resolved.endpoints.map((e) => [e.name, new JudgeClient(e, metrics, cache)]));
  return { ok: true, value: { judges, cache, close: () => cache.close() } };
}
