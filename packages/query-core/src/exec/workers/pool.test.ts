import { afterAll, describe, expect, it } from 'vitest';
import { WorkerPool } from './pool.js';

const pool = new WorkerPool(2);
afterAll(() => pool.close());

describe('WorkerPool', () => {
  it('is not ready until its threads have started, then is', async () => {
    expect(pool.threads).toBe(0);
    expect(pool.ready()).toBe(false);
    let tries = 0;
    while (!pool.ready() && tries++ < 200) await new Promise((r) => setTimeout(r, 50));
    expect(pool.ready()).toBe(true);
    expect(pool.threads).toBe(2);
  });

  it('runs a named task in a worker (TypeScript loaded there)', async () => {
    const r = await pool.run<{ groups: number }>('aggregate', { rows: 0, columns: [], keyColumns: [], keyTypes: [], aggregates: [] }, []);
    expect(r).toEqual({ groups: 0, keys: [], states: [] });
  });

  it('survives the answer of a task aborted while it ran (Piscina reports it as an error event)', async () => {
    const piscina = (pool as unknown as { pool: { emit(event: string, e: Error): boolean } }).pool;
    expect(() => piscina.emit('error', new Error('Unexpected message from Worker'))).not.toThrow();
    const r = await pool.run<{ groups: number }>('aggregate', { rows: 0, columns: [], keyColumns: [], keyTypes: [], aggregates: [] }, []);
    expect(r.groups).toBe(0);
  });
});
