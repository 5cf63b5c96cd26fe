/**
 * A binary heap over an array: `above(a, b)` is true when a belongs nearer the top than b
 * (a min-heap for a k-way merge, a max-heap of the worst kept row for top-N). The top may
 * be changed in place and then sifted down with `fixTop()`.
 */
export class Heap<T> {
  readonly items: T[] = [];

  constructor(private readonly above: (a: T, b: T) => boolean) {}

  get size(): number {
    return this.items.length;
  }

  get top(): T {
    return this.items[0];
  }

  push(x: T): void {
    const h = this.items;
    h.push(x);
    let i = h.length - 1;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (!this.above(h[i], h[p])) break;
      [h[i], h[p]] = [h[p], h[i]];
      i = p;
    }
  }

  /** Replaces the top and restores the order. */
  replaceTop(x: T): void {
    this.items[0] = x;
    this.fixTop();
  }

  /** Removes the top. */
  pop(): void {
    const last = this.items.pop()!;
    if (this.items.length > 0) this.replaceTop(last);
  }

  /** Restores the order after the top's key changed. */
  fixTop(): void {
    const h = this.items;
    let i = 0;
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let m = i;
      if (l < h.length && this.above(h[l], h[m])) m = l;
      if (r < h.length && this.above(h[r], h[m])) m = r;
      if (m === i) return;
      [h[i], h[m]] = [h[m], h[i]];
      i = m;
    }
  }
}
