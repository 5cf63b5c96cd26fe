import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createConnector, type Connector, type StreamOptions } from '@junction/connectors';
import { Engine } from '../engine.js';

/**
 * Every statement the engine sends carries the authority binding gave it under the caller's
 * policy: the sources the statement reads, those inside its views included (a view's grant
 * covers what it reads), and nothing else. A query run without a policy sends none, so a gate in
 * front of a connector can refuse it.
 */
let dir: string;
let engine: Engine;
const seen: { source: string; access: StreamOptions['access'] }[] = [];

function watched(inner: Connector): Connector {
  return new Proxy(inner, {
    get(target, prop, receiver) {
      if (prop === 'stream')
        return (q: Parameters<Connector['stream']>[0], o: StreamOptions = {}) => {
          seen.push({ source: target.name, access: o.access });
          return target.stream(q, o);
        };
      const v = Reflect.get(target, prop, receiver);
      return typeof v === 'function' ? v.bind(target) : v;
    },
  });
}

async function rows(sql: string, options: Parameters<Engine['query']>[1] = {}): Promise<unknown[][]> {
  const r = await engine.query(sql, options);
  const out: unknown[][] = [];
  for await (const b of r.rows) out.push(...b);
  return out;
}

beforeAll(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'jt-authority-'));
  engine = new Engine({ workers: 1 });
  for (const [name, ddl] of [
    ['a', `CREATE TABLE t (id INTEGER PRIMARY KEY, x TEXT); INSERT INTO t VALUES (1, 'one'), (2, 'two')`],
    ['b', `CREATE TABLE u (id INTEGER PRIMARY KEY, y TEXT); INSERT INTO u VALUES (1, 'uno')`],
    ['c', `CREATE TABLE w (id INTEGER PRIMARY KEY)`],
  ] as const) {
    const file = path.join(dir, `${name}.db`);
    const db = new Database(file);
    db.exec(ddl);
    db.close();
    const connector = watched(createConnector({ name, engine: 'sqlite', file }));
    engine.addSource({ name, connector, catalog: await connector.introspect(), semantics: await connector.probe() });
  }
  engine.setView({ schema: 's', name: 'v', sql: 'SELECT id, y FROM b.u' });
});

afterAll(async () => {
  await engine?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('statement authority', () => {
  it('covers the sources a query reads through a granted view, and no other', async () => {
    seen.length = 0;
    const access = {
      canReadSource: (s: string) => s === 'a',
      canReadView: (schema: string, view: string) => schema === 's' && view === 'v',
    };
    expect(await rows('SELECT t.x, v.y FROM a.t JOIN s.v ON v.id = t.id', { access, pushdown: false })).toEqual([['one', 'uno']]);
    expect(seen.map((s) => s.source).sort()).toEqual(['a', 'b']);
    for (const s of seen) {
      expect(s.access?.canReadSource('a')).toBe(true);
      expect(s.access?.canReadSource('b')).toBe(true);
      expect(s.access?.canReadSource('c')).toBe(false);
    }
  });

  it('is absent when the query names no policy', async () => {
    seen.length = 0;
    expect(await rows('SELECT x FROM a.t WHERE id = 2')).toEqual([['two']]);
    expect(seen).toEqual([{ source: 'a', access: undefined }]);
  });
});
