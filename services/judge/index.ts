import type { Registry } from 'prom-client';
import { JudgeCache } from './cache';
import { JudgeClient, type Judge } from './client';
import { resolveEndpoints, type JudgeConfigSection } from './config';
import { judgeMetrics } from './metrics';

export { JudgeCache } from './cache';
export { JudgeClient, type Judge, type JudgeMessage, type JudgeRequest, type JudgeResult } from './client';
export { judgeConfigSection, resolveEndpoints, type EndpointSettings, type JudgeConfigSection } from './config';
export type { FailureKind } from './errors';
export { judgeMetrics, type JudgeMetrics } from './metrics';
export { judgeAborted, judgeMissing } from './outcome';
export { IF_JUDGE_ENDPOINT, judgeRubric, judgeRubrics, rubricPrompt, rubricVerdictSchema, type RubricsJudgement, type RubricVerdict, type Turn } from './rubric';
export { defineJudgeSchema, type JudgeSchema } from './schema';

declare module '../../core/verifier' {
  interface Services {
    /** LLM-judge endpoints by name ("search", "if"); absent when the config has no `judge:` section. */
    judges?: ReadonlyMap<string, Judge>;
  }
}

export interface OpenedJudges {
  judges: ReadonlyMap<string, Judge>;
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
  const judges = new Map<string, Judge>(resolved.endpoints.map((e) => [e.name, new JudgeClient(e, metrics, cache)]));
  return { ok: true, value: { judges, cache, close: () => cache.close() } };
}
