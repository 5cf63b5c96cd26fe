import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { coalesce } from './coalesce.js';

async function collect(it: AsyncIterable<string>): Promise<string[]> {
  const out: string[] = [];
  for await (const s of it) out.push(s);
  return out;
}

describe('coalesce', () => {
  it('joins chunks that are ready at once into one', async () => {
    async function* ready() {
      yield 'head\n';
      yield 'r1\nr2\n';
      yield 'stats\n';
    }
    expect(await collect(coalesce(ready()))).toEqual(['head\nr1\nr2\nstats\n']);
  });

  it('sends what it has when the next chunk is not ready, and waits for nothing', async () => {
    async function* slow() {
      yield 'head\n';
      yield 'b1\n';
      await sleep(30);
      yield 'b2\n';
      yield 'stats\n';
    }
    expect(await collect(coalesce(slow()))).toEqual(['head\nb1\n', 'b2\nstats\n']);
  });

  it('never makes a chunk longer than maxChars from more than one chunk', async () => {
    async function* many() {
      for (const s of ['aaaa', 'bbbb', 'cc', 'dddddd', 'e']) yield s;
    }
    expect(await collect(coalesce(many(), { maxChars: 6 }))).toEqual(['aaaabbbb', 'ccdddddd', 'e']);
  });

  it('passes an error through after what was sent, and an empty stream yields nothing', async () => {
    async function* failing() {
      yield 'a';
      await sleep(5);
      throw new Error('source went away');
    }
    const got: string[] = [];
    await expect(
      (async () => {
        for await (const s of coalesce(failing())) got.push(s);
      })(),
    ).rejects.toThrow('source went away');
    expect(got).toEqual(['a']);
    async function* none() {}
    expect(await collect(coalesce(none()))).toEqual([]);
  });

  it('with waitMs, joins a chunk that comes within that time and sends one that comes later alone', async () => {
    async function* paced() {
      yield 'head\n';
      await sleep(5);
      yield 'b1\n';
      await sleep(60);
      yield 'b2\n';
    }
    expect(await collect(coalesce(paced(), { waitMs: 30 }))).toEqual(['head\nb1\n', 'b2\n']);
  });

  it('closes the producer when the consumer stops early', async () => {
    let closed = false;
    async function* endless() {
      try {
        for (let i = 0; ; i++) {
          yield `${i}\n`;
          await sleep(1);
        }
      } finally {
        closed = true;
      }
    }
    for await (const s of coalesce(endless())) if (s.includes('2')) break;
    expect(closed).toBe(true);
  });
});
