import { describe, expect, it } from 'vitest';
import type { LogicalPlan, WindowCall } from '../../plan/logical.js';
import { fire } from '../rule-test-helper.js';
import { MARIADB_CI_CAPS, PG_CAPS, PlanBuilder, col, remote, sources } from '../test-support.js';
import { absorbWindowIntoRemote } from './absorb-window-into-remote.js';

function windowed(make: (b: PlanBuilder, scan: LogicalPlan) => Omit<WindowCall, 'field'>): LogicalPlan {
  const b = new PlanBuilder();
  const s = b.scan('dbD', 'nation', { n_nationkey: 'int32', n_name: 'varchar(25)' });
  return { kind: 'Window', input: remote(s), windows: [{ ...make(b, s), field: b.field('w', 'int64') }] };
}

describe('absorb-window-into-remote', () => {
  it('sends a ranking function with its ORDER BY to the source', () => {
    const plan = windowed((_b, s) => ({ fn: 'rank', args: [], partitionBy: [], orderBy: [{ expr: col(s, 'n_nationkey'), desc: true, nullsFirst: true }] }));
    expect(fire(absorbWindowIntoRemote, plan, sources({ dbD: PG_CAPS }))).toMatchInlineSnapshot(`
      "Remote dbD [n_nationkey#1, n_name#2, w#3]
        Window w#3 := rank() OVER (ORDER BY n_nationkey#1 DESC NULLS FIRST)
          Scan dbD.public.nation AS nation [n_nationkey#1, n_name#2]"
    `);
  });

  it('keeps row_number() without ORDER BY, and a string ORDER BY on a case-insensitive source, in Junction', () => {
    const unordered = windowed(() => ({ fn: 'row_number', args: [], partitionBy: [], orderBy: [] }));
    expect(fire(absorbWindowIntoRemote, unordered, sources({ dbD: PG_CAPS }))).toMatchInlineSnapshot(`
      "Window w#3 := row_number() OVER ()
        ! not pushed: w := row_number() OVER (…): row_number over a window without ORDER BY is evaluated in Junction
        Remote dbD [n_nationkey#1, n_name#2]
          Scan dbD.public.nation AS nation [n_nationkey#1, n_name#2]"
    `);
    const byName = windowed((_b, s) => ({ fn: 'rank', args: [], partitionBy: [], orderBy: [{ expr: col(s, 'n_name'), desc: false, nullsFirst: false }] }));
    expect(fire(absorbWindowIntoRemote, byName, sources({ dbD: MARIADB_CI_CAPS }))).toMatchInlineSnapshot(`
      "Window w#3 := rank() OVER (ORDER BY n_name#2 ASC NULLS LAST)
        ! not pushed: w := rank() OVER (…): string ordering differs from code-point order in source collation
        Remote dbD [n_nationkey#1, n_name#2]
          Scan dbD.public.nation AS nation [n_nationkey#1, n_name#2]"
    `);
  });
});
