import { Counter, Histogram, Registry } from 'prom-client';
import { LabelledHistogram, PairCounter } from './sample-tally';

/** The hot-path tallies expose exactly what prom-client's own Counter and Histogram expose for the same observations. */
describe('sample tallies', () => {
  const bounds = [0.0001, 0.001, 0.01, 0.5, 1, 5];
  // Values on the bounds, between them, past the last, zero; labels in an order that is not sorted.
  const observations: Array<[string, number]> = [];
  for (let i = 0; i < 400; i++) {
    const label = ['math', 'qa', 'code', 'if:rubric "x"'][i % 4]!;
    const value = i % 9 === 0 ? bounds[i % bounds.length]! : i % 11 === 0 ? 0 : i % 13 === 0 ? 7.5 : ((i * 7919) % 1000) / 997 ** ((i % 3) + 1);
    observations.push([label, value]);
  }

  it('a histogram by one label: the same exposition as prom-client', async () => {
    const ours = new Registry();
    const theirs = new Registry();
    const tally = new LabelledHistogram('t_seconds', 'help text', 'verifier', bounds).register(ours);
    const reference = new Histogram({ name: 't_seconds', help: 'help text', labelNames: ['verifier'], buckets: bounds, registers: [theirs] });
    for (const [label, value] of observations) {
      tally.observe(label, value);
      reference.observe({ verifier: label }, value);
    }
    expect(await ours.metrics()).toBe(await theirs.metrics());
    ours.resetMetrics();
    expect(await ours.metrics()).toBe('# HELP t_seconds help text\n# TYPE t_seconds histogram\n');
  });

  it('a counter by two labels: the same exposition as prom-client', async () => {
    const ours = new Registry();
    const theirs = new Registry();
    const tally = new PairCounter('t_total', 'help text', ['verifier', 'status']).register(ours);
    const reference = new Counter({ name: 't_total', help: 'help text', labelNames: ['verifier', 'status'], registers: [theirs] });
    for (const [label, value] of observations) {
      const status = value > 0.5 ? 'FAILED' : 'OK';
      tally.inc(label, status);
      reference.inc({ verifier: label, status });
    }
    expect(await ours.metrics()).toBe(await theirs.metrics());
  });
});
