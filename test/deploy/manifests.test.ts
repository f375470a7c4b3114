import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { parseConfig } from '../../services/config';
import { Metrics } from '../../services/metrics';
import { packageRoot } from '../../services/paths';
import { modelModule, unknownFieldsChecker } from './known-fields';

/*
 * deploy/ as an operator applies it: rendered by kubectl's kustomize (Debian's kubernetes-client in
 * CI, kustomize v2.0; newer ones here), every object validated against the Kubernetes API schemas
 * of kubernetes-models (and, as those accept unknown fields, every field checked against the API
 * types' declarations: known-fields.ts), the config the pods mount accepted by Verdict's own
 * loader, and the Grafana dashboard reading only series the server exports.
 */

type K8sObject = { apiVersion: string; kind: string; metadata: { name: string }; [key: string]: unknown };

function kubectl(): string {
  for (const candidate of [process.env['KUBECTL'], '/usr/bin/kubectl', 'kubectl']) {
    if (!candidate) continue;
    try {
      execFileSync(candidate, ['version', '--client'], { stdio: 'ignore' });
      return candidate;
    } catch {
      // try the next
    }
  }
  throw new Error('kubectl not found: install Debian\'s kubernetes-client (apt-get install -y kubernetes-client), or set KUBECTL');
}

function render(dir: string): K8sObject[] {
  const text = execFileSync(kubectl(), ['kustomize', join(packageRoot(), 'deploy', dir)], { encoding: 'utf8' });
  return parseAllDocuments(text).map((d) => d.toJS() as K8sObject);
}

/** kubernetes-models' class for an object's apiVersion and kind; its `validate()` checks the API schema. */
function modelOf(o: K8sObject): { validate(): void } {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const Model = (require(modelModule(o)) as Record<string, new (o: unknown) => { validate(): void }>)[o.kind];
  if (!Model) throw new Error(`no model for ${o.apiVersion} ${o.kind}`);
  return new Model(o);
}

const byKind = (objects: K8sObject[], kind: string) => objects.find((o) => o.kind === kind) as K8sObject & Record<string, any>;

const rendered = new Map(['base', 'overlays/example'].map((dir) => [dir, render(dir)]));
// One TypeScript Program for the kinds of both renderings.
const unknownFields = unknownFieldsChecker([...rendered.values()].flat());

describe.each([...rendered.keys()])('deploy/%s', (dir) => {
  const objects = rendered.get(dir)!;

  it('renders a Deployment, headless Service, HPA, PDB and the ConfigMap, each valid against the API schema', () => {
    expect(objects.map((o) => o.kind).sort()).toEqual(
      expect.arrayContaining(['ConfigMap', 'Deployment', 'HorizontalPodAutoscaler', 'PodDisruptionBudget', 'Service']),
    );
    for (const o of objects) expect(() => modelOf(o).validate()).not.toThrow();
  });

  it('mounts a config that Verdict accepts', () => {
    const config = byKind(objects, 'ConfigMap');
    expect(() => parseConfig(parseAllDocuments(config.data['verdict.yaml'])[0]!.toJS(), 'verdict.yaml')).not.toThrow();
  });

  it('wires probes, drain and selectors consistently', () => {
    const deployment = byKind(objects, 'Deployment');
    const pod = deployment.spec.template.spec;
    const container = pod.containers[0];
    const grpcPort = container.ports.find((p: { name: string }) => p.name === 'grpc').containerPort;
    expect(container.readinessProbe.grpc).toEqual({ port: grpcPort, service: 'verdict.v1.Scorer' });
    expect(container.livenessProbe.grpc.port).toBe(grpcPort);
    expect(container.args).toContain(`--port=${grpcPort}`);
    expect(container.args).toContain('--host=0.0.0.0');
    // The grace period covers the preStop pause and the whole drain.
    const drainMs = Number((container.args as string[]).find((a) => a.startsWith('--drain-ms='))!.split('=')[1]);
    expect(pod.terminationGracePeriodSeconds).toBeGreaterThan(container.lifecycle.preStop.sleep.seconds + drainMs / 1000);
    // Non-root, as the sandbox's user mode needs, with what bubblewrap needs to nest.
    expect(pod.securityContext.runAsNonRoot).toBe(true);
    expect(pod.hostUsers).toBe(false);
    expect(container.securityContext.procMount).toBe('Unmasked');
    const service = byKind(objects, 'Service');
    expect(service.spec.clusterIP).toBe('None');
    expect(service.spec.selector).toEqual(deployment.spec.template.metadata.labels);
    expect(byKind(objects, 'PodDisruptionBudget').spec.selector.matchLabels).toEqual(deployment.spec.selector.matchLabels);
    const configMap = byKind(objects, 'ConfigMap').metadata.name;
    expect(pod.volumes.find((v: { name: string }) => v.name === 'config').configMap.name).toBe(configMap);
  });

  it('catches a broken object (the validation is not a formality)', () => {
    const deployment = structuredClone(byKind(objects, 'Deployment'));
    deployment.spec.template.spec.containers[0].ports[0].containerPort = 'fifty';
    expect(() => modelOf(deployment).validate()).toThrow(/containerPort/);
  });

  it('sets only fields the Kubernetes API types declare', () => {
    for (const o of objects) expect([o.kind, unknownFields(o)]).toEqual([o.kind, []]);
  });

  it('catches a misspelt field (the field check is not a formality), and takes any label', () => {
    const deployment = structuredClone(byKind(objects, 'Deployment'));
    const container = deployment.spec.template.spec.containers[0];
    container.resource = {};
    container.readinessProbe.initialDelaySecond = 5;
    const metadata: { name: string; labels?: Record<string, string> } = deployment.metadata;
    metadata.labels = { ...metadata.labels, 'example.com/any.key': 'x' };
    expect(() => modelOf(deployment).validate()).not.toThrow(); // what validate() lets through
    expect(unknownFields(deployment).sort()).toEqual([
      'spec.template.spec.containers[0].readinessProbe.initialDelaySecond',
      'spec.template.spec.containers[0].resource',
    ]);
  });
});

describe('deploy/grafana-dashboard.json', () => {
  it('queries only metrics and labels the server exports (or Prometheus adds)', async () => {
    const dashboard = JSON.parse(readFileSync(join(packageRoot(), 'deploy', 'grafana-dashboard.json'), 'utf8')) as {
      panels: { targets: { expr: string }[] }[];
    };
    // The metrics a running server registers, the queue gauges included.
    const metrics = new Metrics();
    metrics.watchQueue(() => ({ pendingSamples: 0, queuedChunks: 0 }));
    const exported = new Map<string, Set<string>>();
    for (const m of await metrics.registry.getMetricsAsJSON()) {
      const labels = new Set<string>(['instance', 'job']);
      for (const v of m.values) for (const l of Object.keys(v.labels)) labels.add(l);
      const names = String(m.type) === 'histogram' ? ['_bucket', '_sum', '_count'].map((s) => m.name + s) : [m.name];
      for (const name of names) exported.set(name, new Set([...labels, ...(name.endsWith('_bucket') ? ['le'] : [])]));
    }
    // Label names declared on metrics that have no series yet.
    const declared = (name: string): string[] => {
      const metric = (metrics.registry.getSingleMetric(name.replace(/_(bucket|sum|count)$/, '')) as unknown as { labelNames?: string[] }) ?? {};
      return metric.labelNames ?? [];
    };
    const exprs = dashboard.panels.flatMap((p) => p.targets.map((t) => t.expr));
    expect(exprs.length).toBeGreaterThan(10);
    for (const expr of exprs) {
      const names = [...expr.matchAll(/\b((?:verdict|process|nodejs)_[a-z_0-9]+)/g)].map((m) => m[1] as string);
      expect(names.length).toBeGreaterThan(0);
      for (const name of names) {
        expect([name, exported.has(name)]).toEqual([name, true]);
        const labels = new Set([...exported.get(name)!, ...declared(name)]);
        const used = [...expr.matchAll(/by \(([^)]*)\)/g)].flatMap((m) => (m[1] as string).split(',').map((s) => s.trim()));
        const matched = [...expr.matchAll(/([a-z_]+)=~?"/g)].map((m) => m[1] as string);
        for (const label of [...used, ...matched]) expect([name, label, labels.has(label)]).toEqual([name, label, true]);
      }
    }
  });
});
