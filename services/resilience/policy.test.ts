import { z } from 'zod';
import { checkAgainst } from '../../core/label';
import { endpointKeys, retryPolicyOf, withRenamedKeys } from './policy';

const DEFAULTS = { maxConcurrency: 8, maxAttempts: 3, attemptTimeoutMs: 1000, deadlineMs: 5000, backoff: { initialMs: 100, maxMs: 800, jitter: 0.2 }, maxRetryAfterMs: 2000 };
const endpoint = z.strictObject({ url: z.string(), ...endpointKeys(DEFAULTS) });

describe('the shared keys of an endpoint section', () => {
  it('fill in the service\'s defaults, each of the backoff keys on its own', () => {
    expect(endpoint.parse({ url: 'http://x' })).toEqual({ url: 'http://x', ...DEFAULTS });
    expect(endpoint.parse({ url: 'http://x', backoff: { maxMs: 50_000 } }).backoff).toEqual({ initialMs: 100, maxMs: 50_000, jitter: 0.2 });
  });

  it('refuse values no client can use, naming the key', () => {
    expect(checkAgainst(endpoint, { url: 'x', maxAttempts: 0 }, 'judge')).toMatchObject({ ok: false, error: expect.stringMatching(/^judge\.maxAttempts: /) });
    expect(checkAgainst(endpoint, { url: 'x', backoff: { jitter: 1.5 } }, 'judge')).toMatchObject({ ok: false, error: expect.stringMatching(/^judge\.backoff\.jitter: /) });
    expect(checkAgainst(endpoint, { url: 'x', backoff: { initialMs: 900, maxMs: 800 } }, 'judge')).toEqual({ ok: false, error: 'judge.backoff.maxMs: must be >= initialMs' });
  });

  it('give the retry policy without the endpoint\'s other keys', () => {
    const { maxConcurrency: _, ...policy } = DEFAULTS;
    expect(retryPolicyOf(endpoint.parse({ url: 'http://x' }))).toEqual(policy);
  });
});

describe('withRenamedKeys', () => {
  const renamed = withRenamedKeys(endpoint, { retries: 'maxAttempts' });

  it('names the key that replaced an old one, rather than "unknown field"', () => {
    expect(checkAgainst(renamed, { url: 'x', retries: 3 }, 'judge')).toEqual({ ok: false, error: 'judge.retries: renamed: use maxAttempts' });
  });

  it('parses a section in the current vocabulary as the schema does', () => {
    expect(renamed.parse({ url: 'http://x', maxAttempts: 5 })).toEqual({ url: 'http://x', ...DEFAULTS, maxAttempts: 5 });
  });
});
