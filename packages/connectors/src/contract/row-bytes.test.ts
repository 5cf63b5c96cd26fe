import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import type { Row, Value } from './types.js';
import { rowBytes, textRowBytes } from './row-bytes.js';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

const ROWS = 100_000;
/** a string of its own, as a driver decodes it (not a literal or a concatenation sharing parts) */
const text = (s: string): string => Buffer.from(s).toString();

/** Heap bytes per row for rows built as connectors and operators build them (`new Array(n)`), after full GCs. */
function measured(make: (i: number) => Value[]): { real: number; estimate: number } {
  const rows: Row[] = new Array(ROWS);
  gc();
  gc();
  const before = process.memoryUsage();
  for (let i = 0; i < ROWS; i++) {
    const values = make(i);
    const row: Row = new Array(values.length);
    for (let j = 0; j < values.length; j++) row[j] = values[j];
    rows[i] = row;
  }
  gc();
  gc();
  const after = process.memoryUsage();
  let estimate = 0;
  for (const r of rows) estimate += rowBytes(r);
  const real = after.heapUsed - before.heapUsed + after.arrayBuffers - before.arrayBuffers;
  return { real: real / ROWS, estimate: estimate / ROWS };
}

// the layout measured is Node's own build's (64-bit slots); a V8 with pointer compression holds less
const layout = Number((process.config.variables as Record<string, unknown>).v8_enable_pointer_compression ?? 0) ? describe.skip : describe;

layout('rowBytes against what V8 holds', () => {
  it.each<[string, (i: number) => Value[]]>([
    ['small integers', (i) => [i, i + 1, i + 2, i + 3]],
    // beside a NULL, as in most rows: an array of doubles alone may keep them unboxed (less than counted)
    ['doubles and integers past 2^31', (i) => [i + 0.5, 2 ** 40 + i, null]],
    ['nulls and booleans', (i) => [null, true, i % 2 === 0, null]],
    ['bigints', (i) => [BigInt(i) * 10_000_000_000n, -BigInt(i)]],
    ['text past U+00FF', (i) => [text(`ж${'я'.repeat(30)}${i}`)]],
    ['byte arrays', (i) => [new Uint8Array(64 + (i % 8))]],
  ])('%s: within 5%', (_, make) => {
    const { real, estimate } = measured(make);
    expect(estimate / real).toBeGreaterThan(0.95);
    expect(estimate / real).toBeLessThan(1.05);
  });

  it.each<[string, (i: number) => Value[]]>([
    ['short ASCII text (decimals, codes)', (i) => [i, text(`${1000 + i}.25`), text(`0.0${i % 10}`), text('R')]],
    ['long ASCII text', (i) => [text('x'.repeat(190) + String(i).padStart(10, '0'))]],
  ])('%s: never under, at most twice (two bytes a character counted)', (_, make) => {
    const { real, estimate } = measured(make);
    expect(estimate / real).toBeGreaterThanOrEqual(1);
    expect(estimate / real).toBeLessThan(2);
  });
});

describe('textRowBytes', () => {
  it('weighs undecoded cells as the strings they become', () => {
    const cells = ['12345', null, 'héllo'];
    expect(textRowBytes(cells)).toBe(rowBytes(['12345', null, 'héllo']));
    expect(textRowBytes([Buffer.from('12345'), null, Buffer.from('abc')])).toBe(rowBytes(['12345', null, 'abc']));
  });
});
