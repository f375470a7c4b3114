import { lookup } from 'node:dns/promises';
import { aborted, type ScoreResult } from '../core/sample';
import type { ClientAuth } from '../services/auth';
import { ScorerClient } from '../services/grpc/client';
import type { BatchScorer } from './scorer';

/** `host:port,host:port` or `dns:///name:port` (every address the name resolves to is a replica). */
export async function replicaAddresses(spec: string): Promise<string[]> {
  const dns = /^dns:\/\/\/(.+):(\d+)$/.exec(spec);
  if (dns) {
    const found = await lookup(dns[1]!, { all: true });
    if (found.length === 0) throw new Error(`--server: ${dns[1]} resolves to no address`);
    return found.map((a) => (a.family === 6 ? `[${a.address}]:${dns[2]}` : `${a.address}:${dns[2]}`));
  }
  const targets = spec.split(',').map((t) => t.trim()).filter((t) => t !== '');
  for (const target of targets) {
    if (!/^(\[[0-9a-fA-F:]+\]|[^:\s]+):\d+$/.test(target)) throw new Error(`--server: "${target}" is not host:port`);
  }
  if (targets.length === 0) throw new Error('--server: no replica given');
  return targets;
}

/** gRPC codes worth another replica: down or draining (UNAVAILABLE), or its queue full (RESOURCE_EXHAUSTED). */
const RETRYABLE = new Set([14, 8]);
/** Passes over all replicas before a batch is given up as ABORTED (reason "unavailable"). */
const MAX_PASSES = 5;

/**
 * Batches go round-robin to the replicas. A unary Score answers the whole batch or nothing, so a batch
 * refused with UNAVAILABLE (replica down or draining) or RESOURCE_EXHAUSTED (queue full) is sent whole
 * to the next replica: no sample is lost or scored twice. A batch that no replica takes after several
 * passes comes back ABORTED, for `--retry-aborted` to pick up later.
 */
export function remoteScorer(addresses: readonly string[], auth: ClientAuth = {}): BatchScorer {
  const replicas = addresses.map((address) => ({ address, client: new ScorerClient(address, auth), downUntil: 0, failures: 0 }));
  let next = 0;
  /** The next replica in turn that is not resting after a failure; if all are, the one back soonest. */
  const pick = () => {
    const now = Date.now();
    for (let k = 0; k < replicas.length; k++) {
      const replica = replicas[(next + k) % replicas.length]!;
      if (replica.downUntil <= now) {
        next = (next + k + 1) % replicas.length;
        return replica;
      }
    }
    return replicas.reduce((a, b) => (b.downUntil < a.downUntil ? b : a));
  };
  return {
    parallelism: replicas.length * 2,
    async score(samples) {
      let lastError = '';
      for (let attempt = 0; attempt < replicas.length * MAX_PASSES; attempt++) {
        const replica = pick();
        const wait = replica.downUntil - Date.now();
        if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
        const started = process.hrtime.bigint();
        try {
          const { results } = await replica.client.score(samples);
          replica.failures = 0;
          const seconds = Number(process.hrtime.bigint() - started) / 1e9;
          return results.map((result) => ({ result, seconds }));
        } catch (error) {
          const code = (error as { code?: number }).code;
          if (code === undefined || !RETRYABLE.has(code)) throw new Error(`${replica.address}: ${(error as Error).message}`);
          lastError = `${replica.address}: ${(error as Error).message}`;
          // Rest a failing replica, longer each time, so batches go to the others meanwhile.
          replica.failures++;
          replica.downUntil = Date.now() + Math.min(200 * 2 ** (replica.failures - 1), 5000);
        }
      }
      return samples.map((sample, index) => {
        const outcome = aborted('unavailable', { error: lastError });
        const result: ScoreResult = { id: sample.id, index, status: outcome.status, reason: outcome.reason, verifier: sample.verifier, verifierVersion: '', details: outcome.details };
        return { result, seconds: 0 };
      });
    },
    async close() {
      for (const r of replicas) r.client.close();
    },
  };
}
