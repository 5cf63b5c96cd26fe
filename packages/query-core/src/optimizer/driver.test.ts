import { describe, expect, it } from 'vitest';
import { printPlan } from '../plan/print.js';
import type { LogicalPlan } from '../plan/logical.js';
import { optimize, runPhases } from './driver.js';
import { MARIADB_CI_CAPS, PG_CAPS, PlanBuilder, and, col, eq, lit, lt, sources } from './test-support.js';

function query() {
  const b = new PlanBuilder();
  const c = b.scan('dbB', 'customer', { c_custkey: 'int64', c_name: 'varchar(25)', c_comment: 'text' }, 150_000);
  const o = b.scan('dbA', 'orders', { o_orderkey: 'int64', o_custkey: 'int64' }, 1_500_000);
  const j = b.join('cross', c, o);
  const f = b.filter(
    j,
    and(
      eq(col(j, 'c_custkey'), col(j, 'o_custkey')),
      lt(col(j, 'c_custkey'), lit(100)),
      eq(col(j, 'c_name'), lit('x')),
    ),
  );
  return b.select(f, ['o_orderkey', 'c_name']);
}

describe('optimize', () => {
  it('pushes predicates, infers through the join key, prunes columns and picks a strategy', () => {
    expect(printPlan(optimize(query(), sources({ dbA: PG_CAPS, dbB: MARIADB_CI_CAPS })))).toMatchInlineSnapshot(`
      "Project o_orderkey#6 := o_orderkey#4, c_name#7 := c_name#2
        Join inner ON (c_custkey#1 = o_custkey#5) strategy=dependent(driver=left, maxInList=1000, parallel=4)
          ! not pushed: (c_custkey = o_custkey): spans sources (dbA, dbB)
          Filter (c_name#2 = 'x')
            ! not pushed: (c_name = 'x'): string comparison under a case-insensitive or pad-space collation
            Remote dbB [c_custkey#1, c_name#2]
              Filter (c_custkey#1 < 100)
                Scan dbB.public.customer AS customer [c_custkey#1, c_name#2]
          Remote dbA [o_orderkey#4, o_custkey#5]
            Filter (o_custkey#5 < 100)
              Scan dbA.public.orders AS orders [o_orderkey#4, o_custkey#5]"
    `);
  });

  it('with pushdown off places predicates in Junction and fetches whole base tables (the correctness oracle)', () => {
    expect(printPlan(optimize(query(), sources({ dbA: PG_CAPS, dbB: PG_CAPS }, false)))).toMatchInlineSnapshot(`
      "Project o_orderkey#6 := o_orderkey#4, c_name#7 := c_name#2
        Join inner ON (c_custkey#1 = o_custkey#5)
          Filter ((c_custkey#1 < 100) AND (c_name#2 = 'x'))
            Project c_custkey#1 := c_custkey#1, c_name#2 := c_name#2
              Remote dbB [c_custkey#1, c_name#2, c_comment#3]
                Scan dbB.public.customer AS customer [c_custkey#1, c_name#2, c_comment#3]
          Filter (o_custkey#5 < 100)
            Remote dbA [o_orderkey#4, o_custkey#5]
              Scan dbA.public.orders AS orders [o_orderkey#4, o_custkey#5]"
    `);
  });

  it("reports a rule that changes a node's output, naming the rule", () => {
    const b = new PlanBuilder();
    const s = b.scan('dbA', 'orders', { o_orderkey: 'int64', o_custkey: 'int64' });
    const bad = (n: LogicalPlan): LogicalPlan | undefined =>
      n.kind === 'Scan' && n.fields.length > 1
        ? { ...n, fields: n.fields.slice(1), columns: n.columns.slice(1) }
        : undefined;
    expect(() =>
      runPhases(s, sources({ dbA: PG_CAPS }), [
        { name: 't', mode: 'fixpoint', rules: [{ name: 'drop-first-column', apply: bad }] },
      ]),
    ).toThrow(
      /rule drop-first-column changed the output of a Scan node from \[o_orderkey#1, o_custkey#2\] to \[o_custkey#2\]/,
    );
  });

  it('reports rules that never reach a fixed point', () => {
    const b = new PlanBuilder();
    const s = b.scan('dbA', 'orders', { o_orderkey: 'int64' });
    const flip = (n: LogicalPlan): LogicalPlan | undefined =>
      n.kind === 'Scan' ? { ...n, alias: n.alias === 'a' ? 'b' : 'a' } : undefined;
    expect(() =>
      runPhases(s, sources({ dbA: PG_CAPS }), [
        { name: 't', mode: 'fixpoint', rules: [{ name: 'flip-alias', apply: flip }] },
      ]),
    ).toThrow(/did not reach a fixed point \(last rule: flip-alias\)/);
  });
});
