import { createRegistry } from '.';
import { math } from './math';

describe('the verifier registry', () => {
  it('serves the math verifier under its name', () => {
    expect(createRegistry().get('math')).toBe(math);
  });
});
