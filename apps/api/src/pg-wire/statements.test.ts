import { describe, expect, it } from 'vitest';
import { SessionSettings, parseDuration } from './settings.js';
import { classify, splitStatements } from './statements.js';

describe('splitStatements', () => {
  it('splits at top-level semicolons only', () => {
    const sql = `SELECT ';' AS a; SELECT "x;y" FROM t -- c;omment
; SELECT $f$ ; $f$, E'\\'; still', /* ; /* nested ; */ */ 1;`;
    expect(splitStatements(sql).map((p) => [p.text.trim(), p.offset])).toEqual([
      ["SELECT ';' AS a", 0],
      ['SELECT "x;y" FROM t -- c;omment', 16],
      ["SELECT $f$ ; $f$, E'\\'; still', /* ; /* nested ; */ */ 1", 50],
    ]);
  });

  it('keeps one empty piece for an empty message', () => {
    expect(splitStatements(' ;; -- nothing\n')).toEqual([{ text: '', offset: 0 }]);
  });
});

describe('classify', () => {
  it.each([
    ['SELECT * FROM dbA.region', { kind: 'query' }],
    ['/*+ cache(ttl=60) */ SELECT 1', { kind: 'query' }],
    ['(SELECT 1) UNION (SELECT 2)', { kind: 'query' }],
    ["SELECT * FROM dbA.t WHERE note = 'pg_catalog'", { kind: 'query' }],
    ['SELECT version FROM dbA.releases', { kind: 'query' }],
    ['SELECT version()', { kind: 'catalog' }],
    ['select n.nspname from pg_catalog.pg_namespace n', { kind: 'catalog' }],
    ['SELECT * FROM information_schema.tables', { kind: 'catalog' }],
    ["SELECT 'dbA.region'::regclass", { kind: 'catalog' }],
    ['SELECT current_user', { kind: 'catalog' }],
    [
      "SELECT set_config('session_authorization', 'postgres', false) FROM pg_class",
      { kind: 'forbidden', what: 'set_config' },
    ],
    ["SELECT pg_read_binary_file('global/pg_control')", { kind: 'forbidden', what: 'pg_read_binary_file' }],
    ['INSERT INTO dbA.t VALUES (1)', { kind: 'refused', verb: 'INSERT' }],
    ['DO $$ BEGIN END $$', { kind: 'refused', verb: 'DO' }],
    ['copy dbA.t from stdin', { kind: 'refused', verb: 'COPY' }],
    [
      'COPY ( SELECT 1 ) TO STDOUT WITH (FORMAT csv, HEADER)',
      { kind: 'copy', query: ' SELECT 1 ', csv: true, header: true },
    ],
    ['COPY (SELECT 1) TO STDOUT', { kind: 'copy', query: 'SELECT 1', csv: false, header: false }],
    ['EXPLAIN (ANALYZE, COSTS off) SELECT 1', { kind: 'explain', analyze: true, query: 'SELECT 1' }],
    ['explain select 1', { kind: 'explain', analyze: false, query: 'select 1' }],
    ['SET statement_timeout = 5', { kind: 'session', verb: 'set' }],
    ['  -- leading comment\n  BEGIN', { kind: 'session', verb: 'begin' }],
    ['', { kind: 'empty' }],
  ])('%s', (sql, kind) => {
    expect(classify(sql)).toEqual(kind);
  });
});

describe('SessionSettings', () => {
  it('reports what clients read, takes start-up parameters and refuses formats it does not print', () => {
    const s = new SessionSettings('alice', {
      user: 'alice',
      database: 'junction',
      application_name: 'psql',
      client_encoding: 'UTF8',
      DateStyle: 'German',
    });
    expect(Object.fromEntries(s.reported('18.6 (Junction)'))).toEqual({
      server_version: '18.6 (Junction)',
      server_encoding: 'UTF8',
      client_encoding: 'UTF8',
      application_name: 'psql',
      DateStyle: 'ISO, MDY',
      IntervalStyle: 'postgres',
      TimeZone: 'UTC',
      integer_datetimes: 'on',
      standard_conforming_strings: 'on',
      is_superuser: 'off',
      session_authorization: 'alice',
      default_transaction_read_only: 'on',
      in_hot_standby: 'off',
    });
    expect(s.set("SET application_name TO 'x'")).toEqual([['application_name', 'x']]);
    expect(s.set("SET TIME ZONE 'Europe/Prague'")).toEqual([['TimeZone', 'Europe/Prague']]);
    expect(() => s.set("SET DateStyle = 'SQL, DMY'")).toThrow('Junction answers dates in ISO style only');
    expect(() => s.set('SET nonsense = 1')).toThrow('unrecognized configuration parameter "nonsense"');
    expect(s.set('SET my.custom = 1')).toEqual([]);
    expect(s.set("SET statement_timeout = '2s'")).toEqual([]);
    expect(s.timeoutMs).toBe(2000);
    expect(s.show('SHOW statement_timeout')).toEqual({
      columns: [{ name: 'statement_timeout', type: { kind: 'string' }, nullable: false }],
      rows: [['2s']],
    });
    // back to the start-up message's values, as PostgreSQL resets to the session's defaults
    expect(s.reset('RESET ALL')).toEqual([
      ['application_name', 'psql'],
      ['TimeZone', 'UTC'],
    ]);
    expect(s.timeoutMs).toBeUndefined();
  });

  it('reads PostgreSQL durations', () => {
    expect([parseDuration('250'), parseDuration('1.5s'), parseDuration("'2min'"), parseDuration('1h')]).toEqual([
      250, 1500, 120_000, 3_600_000,
    ]);
    expect(() => parseDuration('soon')).toThrow('statement_timeout');
  });
});
