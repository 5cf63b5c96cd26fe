import { describe, expect, it } from 'vitest';
import { Choices, rng, useFixture, NUMERIC, NAMES, junctionRows, normalise, TABLES, type TableName } from './fixture.js';

/**
 * Differential testing of aggregates over trees of joins that span both sources, where the
 * optimizer may split an aggregate into a partial one inside a source, several joins down, and
 * a final one above (eager aggregation): inner and left joins, nested on either side, grouped
 * or not, over NULL keys, duplicate keys and the empty table. Each query must return
 * PostgreSQL's rows, with pushdown on and off. SEED and COUNT override the defaults.
 */
const SEED = Number(process.env.SEED ?? 20261123);
const COUNT = Number(process.env.COUNT ?? 200);

const f = useFixture();


class Generator extends Choices {

  query(): string {
    // three tables, not all from one source: some join must stay in Junction
    let tables: TableName[];
    do tables = [this.pick(NAMES), this.pick(NAMES), this.pick(NAMES)];
    while (new Set(tables.map((t) => TABLES[t].source)).size < 2);
    const [t1, t2, t3] = tables;
    const col = (alias: string, t: TableName) => `${alias}.${this.pick(NUMERIC[t])}`;
    const kind = () => this.pick(['JOIN', 'JOIN', 'LEFT JOIN']);
    const on = (x: string, xt: TableName, y: string, yt: TableName) =>
      `${y}.k = ${x}.${this.pick(['k', 'k', 'id'])}${this.chance(0.2) ? ` AND ${col(y, yt)} > 1` : ''}`;
    const q = (t: TableName) => `${TABLES[t].source}.${t}`;
    const from = this.chance(0.3)
      ? // nested on the right: x1 then (x2 joined with x3)
        `${q(t1)} x1 ${kind()} (${q(t2)} x2 ${kind()} ${q(t3)} x3 ON ${on('x2', t2, 'x3', t3)}) ON ${on('x1', t1, 'x2', t2)}`
      : `${q(t1)} x1 ${kind()} ${q(t2)} x2 ON ${on('x1', t1, 'x2', t2)} ${kind()} ${q(t3)} x3 ON ${on(this.pick(['x1', 'x2']), t1, 'x3', t3)}`;
    const aliases: [string, TableName][] = [
      ['x1', t1],
      ['x2', t2],
      ['x3', t3],
    ];
    const any = () => {
      const [x, t] = this.pick(aliases);
      return col(x, t);
    };
    const groups = Array.from({ length: this.pick([0, 1, 1, 2]) }, any);
    const aggs = Array.from({ length: this.pick([1, 2, 3]) }, () =>
      this.pick([`count(*)`, `count(${any()})`, `sum(${any()})`, `min(${any()})`, `max(${any()})`]),
    );
    const where = this.chance(0.4) ? ` WHERE ${any()} ${this.pick(['>', '<', '<>'])} ${this.pick([0, 1, 2, 10, 25])}` : '';
    const groupBy = groups.length > 0 ? ` GROUP BY ${groups.join(', ')}` : '';
    return `SELECT ${[...groups, ...aggs].join(', ')} FROM ${from}${where}${groupBy}`;
  }
}

describe('aggregates over joins across sources: Junction answers as PostgreSQL does', () => {
  it(`${COUNT} generated queries (seed ${SEED})`, async () => {
    const g = new Generator(rng(SEED));
    for (let i = 0; i < COUNT; i++) {
      const sql = g.query();
      const reference = normalise(await f.reference(sql)).sort();
      for (const pushdown of [true, false]) {
        const got = normalise(await junctionRows(f.engine, sql, pushdown)).sort();
        expect(got, `seed ${SEED}, query #${i} (pushdown ${pushdown ? 'on' : 'off'}): ${sql}`).toEqual(reference);
      }
    }
  }, 600_000);
});
