import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Registry } from 'prom-client';
import { z } from 'zod';
import { JudgeCache } from '../../services/judge/cache';
import { JudgeClient } from '../../services/judge/client';
import type { EndpointSettings } from '../../services/judge/config';
import { judgeMetrics, type JudgeMetrics } from '../../services/judge/metrics';
import { defineJudgeSchema } from '../../core/ports/judge';
import { FakeOpenAIServer } from '../fakes/fake-openai-server';

/** Endpoint settings with retry delays small enough for tests. */
export function testSettings(url: string, overrides: Partial<EndpointSettings> = {}): EndpointSettings {
  return {
    name: 'search',
    url,
    model: 'Qwen/Qwen3-32B',
    apiKey: 'test-key',
    maxConcurrency: 16,
    maxAttempts: 3,
    attemptTimeoutMs: 2_000,
    deadlineMs: 5_000,
    backoff: { initialMs: 5, maxMs: 20, jitter: 0.25 },
    maxRetryAfterMs: 1_000,
    temperature: 0,
    maxTokens: 256,
    extraBody: {},
    ...overrides,
  };
}

export const gradeSchema = defineJudgeSchema(
  'answer_grade',
  z.strictObject({ reasoning: z.string(), score: z.number().min(0).max(1) }),
);

/** A grading request the fixture grader scores: 1 when `answer` equals `gold`. */
export function gradeRequest(answer: string, gold = 'Paris') {
  return {
    schema: gradeSchema,
    messages: [
      { role: 'user' as const, content: `<correct_answer>\n${gold}\n</correct_answer>\n<response>\n${answer}\n</response>` },
    ],
  };
}

export interface Rig {
  server: FakeOpenAIServer;
  url: string;
  registry: Registry;
  metrics: JudgeMetrics;
  dir: string;
  cachePath: string;
  caches: JudgeCache[];
  client(overrides?: Partial<EndpointSettings>, cache?: JudgeCache | null): JudgeClient;
  close(): Promise<void>;
}

/** A fake server, a fresh metrics registry and a temp SQLite cache per test. */
export async function rig(): Promise<Rig> {
  const server = new FakeOpenAIServer();
  const url = await server.start();
  const registry = new Registry();
  const metrics = judgeMetrics(registry);
  const dir = mkdtempSync(join(tmpdir(), 'verdict-judge-'));
  const cachePath = join(dir, 'cache.sqlite');
  const caches: JudgeCache[] = [];
  return {
    server,
    url,
    registry,
    metrics,
    dir,
    cachePath,
    caches,
    client(overrides = {}, cache) {
      let use = cache ?? undefined;
      if (cache === undefined) {
        use = new JudgeCache(cachePath);
        caches.push(use);
      }
      return new JudgeClient(testSettings(url, overrides), metrics, use);
    },
    async close() {
      for (const cache of caches) cache.close();
      await server.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** The value of a counter for the given labels (0 when never incremented). */
export async function counterValue(registry: Registry, name: string, labels: Record<string, string>): Promise<number> {
  const metric = registry.getSingleMetric(name);
  if (!metric) return 0;
  const { values } = await metric.get();
  const hit = values.find((v) => Object.entries(labels).every(([k, val]) => v.labels[k] === val));
  return hit?.value ?? 0;
}
