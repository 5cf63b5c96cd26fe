import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPgDatabase, pgExec, pgSourcePayload, startHarness, type Harness } from '../../test/harness.js';

let h: Harness;
let pgdb: Awaited<ReturnType<typeof createPgDatabase>>;
beforeAll(async () => {
  pgdb = await createPgDatabase('api_access_cache');
  await pgExec(pgdb.url, 'CREATE TABLE public.t (x int); INSERT INTO public.t VALUES (1);');
  h = await startHarness();
  const res = await h.as('admin', {
    method: 'POST',
    url: '/api/v1/sources',
    payload: pgSourcePayload('src', pgdb),
  });
  expect(res.statusCode).toBe(201);
});
afterAll(async () => {
  await h?.close();
  await pgdb?.drop();
});

const query = () => h.as('analyst', { method: 'POST', url: '/api/v1/query', payload: { sql: 'SELECT x FROM src.t' } });

describe('cached access policies and plans', () => {
  it('a grant and its removal apply to the very next query, though policies and plans are reused', async () => {
    expect((await query()).statusCode).toBe(403);
    const g = await h.as('admin', {
      method: 'POST',
      url: '/api/v1/grants',
      payload: { role: 'analyst', sourceName: 'src' },
    });
    expect(g.statusCode).toBe(201);
    for (let i = 0; i < 3; i++) {
      const ok = await query(); // the first binds under the new grants, the others reuse its plan
      expect([ok.statusCode, ok.json().rows]).toEqual([200, [[1]]]);
    }
    expect((await h.as('admin', { method: 'DELETE', url: `/api/v1/grants/${g.json().id}` })).statusCode).toBe(200);
    const denied = await query();
    expect([denied.statusCode, denied.json().code]).toEqual([403, 'access_denied']);
  });
});
