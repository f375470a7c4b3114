/**
 * Byte offsets and sizes a scan records per sample (where its message starts and ends, its
 * response's bytes), appended one by one into a typed array: 4 bytes each, outside the heap, where a
 * JavaScript array of numbers takes 8 on the heap and grows by half again as it fills (a
 * 65,536-sample request kept ~2 MiB more of old space for its four such arrays, measured).
 * Offsets fit: a request is at most the message limit (256 MiB), far below 2^32.
 */
export class Offsets {
  private values = new Uint32Array(64);
  private count = 0;

  get length(): number {
    return this.count;
  }

  push(value: number): void {
    if (this.count === this.values.length) {
      const grown = new Uint32Array(this.values.length * 2);
      grown.set(this.values);
      this.values = grown;
    }
    this.values[this.count++] = value;
  }

  at(index: number): number {
    return this.values[index]!;
  }

  /** Gives back the room not filled, once the scan is done (a 65,536-sample scan ends with up to as much again). */
  trim(): void {
    this.values = this.values.slice(0, this.count);
  }
}
