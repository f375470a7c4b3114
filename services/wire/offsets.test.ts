import { Offsets } from './offsets';

describe('Offsets', () => {
  it('keeps every value pushed, in order, across growth and after trim', () => {
    const offsets = new Offsets();
    const values = Array.from({ length: 1_000 }, (_, i) => i * 65_537);
    for (const v of values) offsets.push(v);
    expect(offsets.length).toBe(values.length);
    expect(values.map((_, i) => offsets.at(i))).toEqual(values);
    offsets.trim();
    expect(offsets.length).toBe(values.length);
    expect(values.map((_, i) => offsets.at(i))).toEqual(values);
  });

  it('holds offsets up to the message limit and past 2^31', () => {
    const offsets = new Offsets();
    offsets.push(256 * 2 ** 20);
    offsets.push(2 ** 31 + 5);
    expect([offsets.at(0), offsets.at(1)]).toEqual([256 * 2 ** 20, 2 ** 31 + 5]);
  });

  it('is empty until pushed, and stays so through trim', () => {
    const offsets = new Offsets();
    offsets.trim();
    expect(offsets.length).toBe(0);
  });
});
