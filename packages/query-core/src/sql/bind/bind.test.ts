import { describe, expect, it } from 'vitest';
import { formatType } from '@junction/connectors';
import type { JunctionError } from '@junction/connectors';
import type { AccessPolicy, ViewDefinition } from '../../api.js';
import { printPlan } from '../../plan/print.js';
import { jdvCatalog } from '../test-fixture.js';
import { bind } from './bind.js';
import type { BindOptions } from './context.js';

const VIEWS: ViewDefinition[] = [
  { schema: 'sales', name: 'rich', sql: 'SELECT c_custkey AS k, c_name FROM dbB.customer WHERE c_acctbal > 1000' },
  { schema: 'sales', name: 'rich_keys', sql: 'SELECT k FROM sales.rich' },
  { schema: 'cyc', name: 'a', sql: 'SELECT * FROM cyc.b' },
  { schema: 'cyc', name: 'b', sql: 'SELECT * FROM cyc.a' },
  { schema: 'broken', name: 'v', sql: 'SELECT nope FROM dbB.customer' },
];
const catalog = jdvCatalog(VIEWS);

function plan(sql: string, options?: BindOptions): string {
  const b = bind(sql, catalog, options);
  return `${printPlan(b.plan)}\n-- ${b.columns.map((c) => `${c.name} ${formatType(c.type)}${c.nullable ? ' NULL' : ''}`).join(', ')}`;
}

function failure(sql: string, options?: BindOptions): JunctionError {
  try {
    bind(sql, catalog, options);
  } catch (e) {
    return e as JunctionError;
  }
  throw new Error('expected an error');
}

const lines = (...l: string[]) => l.join('\n');

describe('binder: select lists, joins and predicates', () => {
  it('expands * and t.*, keeps ids of plain columns and renames with aliases', () => {
    expect(
      plan('SELECT n.*, r_name AS region FROM dbD.nation n JOIN dbD.region r ON n.n_regionkey = r.r_regionkey'),
    ).toBe(
      lines(
        'Project n_nationkey#1 := n_nationkey#1, n_name#2 := n_name#2, n_regionkey#3 := n_regionkey#3, n_comment#4 := n_comment#4, region#6 := r_name#6',
        '  Join inner ON (n_regionkey#3 = r_regionkey#5)',
        '    Scan dbD.jdv_d.nation AS n [n_nationkey#1, n_name#2, n_regionkey#3, n_comment#4]',
        '    Scan dbD.jdv_d.region AS r [r_regionkey#5, r_name#6, r_comment#7]',
        '-- n_nationkey int32, n_name char(25), n_regionkey int32, n_comment varchar(152) NULL, region char(25)',
      ),
    );
  });

  it('makes the inner side of an outer join nullable and keeps ON apart from WHERE', () => {
    expect(
      plan(
        'SELECT c_name, o_orderkey FROM dbB.customer c LEFT JOIN dbA.orders o ON c.c_custkey = o.o_custkey AND o_totalprice > 10.5 WHERE o_orderkey IS NULL',
      ),
    ).toBe(
      lines(
        'Project c_name#2 := c_name#2, o_orderkey#9 := o_orderkey#9',
        '  Filter (o_orderkey#9 IS NULL)',
        "    Join left ON ((c_custkey#1 = o_custkey#10) AND (o_totalprice#12 > '10.5'::decimal))",
        '      Scan dbB.public.customer AS c [c_custkey#1, c_name#2, c_address#3, c_nationkey#4, c_phone#5, c_acctbal#6, c_mktsegment#7, c_comment#8]',
        '      Scan dbA.public.orders AS o [o_orderkey#9, o_custkey#10, o_orderstatus#11, o_totalprice#12, o_orderdate#13, o_orderpriority#14, o_clerk#15, o_shippriority#16, o_comment#17]',
        '-- c_name varchar(25), o_orderkey int32 NULL',
      ),
    );
  });

  it('joins with USING, merging the column', () => {
    expect(
      plan(
        'SELECT * FROM (SELECT n_regionkey AS k FROM dbD.nation) a JOIN (SELECT r_regionkey AS k, r_name FROM dbD.region) b USING (k)',
      ),
    ).toBe(
      lines(
        'Project k#3 := k#3, r_name#6 := r_name#6',
        '  Join inner ON (k#3 = k#5)',
        '    Project k#3 := n_regionkey#3',
        '      Scan dbD.jdv_d.nation AS nation [n_nationkey#1, n_name#2, n_regionkey#3, n_comment#4]',
        '    Project k#5 := r_regionkey#5, r_name#6 := r_name#6',
        '      Scan dbD.jdv_d.region AS region [r_regionkey#5, r_name#6, r_comment#7]',
        '-- k int32, r_name char(25)',
      ),
    );
  });

  it('types literals as PostgreSQL does: unknown strings adopt the column type, integers widen, BETWEEN/IN/LIKE/CASE', () => {
    expect(
      plan(
        "SELECT CASE WHEN o_totalprice > 100 THEN 'big' ELSE NULL END AS size, o_totalprice * 2 AS twice, o_orderkey + 1::bigint AS k FROM dbA.orders " +
          "WHERE o_orderdate BETWEEN '1995-01-01' AND date '1995-12-31' AND o_orderstatus IN ('F', 'O') AND o_comment NOT LIKE '50\\%%' AND o_orderpriority ILIKE '1%'",
      ),
    ).toBe(
      lines(
        "Project size#10 := CASE WHEN (o_totalprice#4 > '100'::decimal) THEN 'big' ELSE NULL END, twice#11 := (o_totalprice#4 * '2'::decimal), k#12 := (CAST(o_orderkey#1 AS int64) + 1)",
        "  Filter (((((o_orderdate#5 >= '1995-01-01'::date) AND (o_orderdate#5 <= '1995-12-31'::date)) AND (o_orderstatus#3 IN ('F', 'O'))) AND (NOT (o_comment#9 LIKE '50\\%%'))) AND (o_orderpriority#6 ILIKE '1%'))",
        '    Scan dbA.public.orders AS orders [o_orderkey#1, o_custkey#2, o_orderstatus#3, o_totalprice#4, o_orderdate#5, o_orderpriority#6, o_clerk#7, o_shippriority#8, o_comment#9]',
        '-- size text NULL, twice decimal, k int64',
      ),
    );
  });

  it('pulls conjuncts shared by every OR arm out of the OR (join keys inside ORs, TPC-H Q19)', () => {
    expect(
      plan(
        "SELECT 1 FROM dbA.lineitem, dbC.part WHERE (p_partkey = l_partkey AND p_brand = 'a' AND l_quantity < 5) OR (l_quantity < 5 AND p_partkey = l_partkey AND p_size = 3) OR (p_partkey = l_partkey AND l_quantity < 5)",
      ).split('\n')[1],
    ).toBe("  Filter ((p_partkey#17 = l_partkey#2) AND (l_quantity#5 < '5'::decimal))");
    expect(
      plan("SELECT 1 FROM dbC.part WHERE (p_size = 1 AND p_brand = 'a') OR (p_size = 1 AND p_brand = 'b')").split(
        '\n',
      )[1],
    ).toBe("  Filter ((p_size#6 = 1) AND ((p_brand#4 = 'a') OR (p_brand#4 = 'b')))");
  });

  it('folds constant arithmetic and compares dates with midnight timestamps as dates (ODBC escapes too)', () => {
    expect(
      plan(
        "SELECT o_orderkey FROM dbA.orders WHERE o_orderdate < date '1993-07-01' + interval '3' month AND o_orderdate >= {ts '1993-01-01 00:00:00'}",
      ),
    ).toBe(
      lines(
        'Project o_orderkey#1 := o_orderkey#1',
        "  Filter ((o_orderdate#5 < '1993-10-01'::date) AND (o_orderdate#5 >= '1993-01-01'::date))",
        '    Scan dbA.public.orders AS orders [o_orderkey#1, o_custkey#2, o_orderstatus#3, o_totalprice#4, o_orderdate#5, o_orderpriority#6, o_clerk#7, o_shippriority#8, o_comment#9]',
        '-- o_orderkey int32',
      ),
    );
  });

  it('infers parameter types from their context, for $n and ?', () => {
    const b = bind('SELECT c_name FROM dbB.customer WHERE c_custkey = $2 AND c_name LIKE $1', catalog);
    expect(b.paramTypes.map(formatType)).toEqual(['text', 'int32']);
    const q = bind('SELECT c_name FROM dbB.customer WHERE c_acctbal > ? AND c_mktsegment = ?', catalog);
    // PostgreSQL gives an unknown compared with char(n) the type bpchar: blank-insensitive, no length
    expect(q.paramTypes).toEqual([{ kind: 'decimal' }, { kind: 'string', fixed: true }]);
  });
});

describe('binder: grouping, ordering, limits, set operations', () => {
  it('groups by ordinals and expressions, collects aggregates once, HAVING above the Aggregate, ORDER BY alias/hidden expression', () => {
    expect(
      plan(
        'SELECT c_nationkey % 5 AS bucket, count(*), sum(c_acctbal) FILTER (WHERE c_acctbal > 0) AS pos, count(DISTINCT c_mktsegment) FROM dbB.customer ' +
          'GROUP BY 1 HAVING count(*) > 10 ORDER BY pos DESC NULLS LAST, max(c_custkey) LIMIT 5 OFFSET 2',
      ),
    ).toBe(
      lines(
        'Project bucket#13 := bucket#13, count#9 := count#9, pos#10 := pos#10, count#11 := count#11',
        '  Limit 5 OFFSET 2',
        '    Sort pos#10 DESC NULLS LAST, max#12 ASC NULLS LAST',
        '      Project bucket#13 := bucket#13, count#9 := count#9, pos#10 := sum#10, count#11 := count#11, max#12 := max#12',
        '        Filter (count#9 > 10)',
        "          Aggregate group=[bucket#13 := (c_nationkey#4 % 5)] aggs=[count#9 := count_star(), sum#10 := sum(c_acctbal#6) FILTER ((c_acctbal#6 > '0'::decimal)), count#11 := count(DISTINCT c_mktsegment#7), max#12 := max(c_custkey#1)]",
        '            Scan dbB.public.customer AS customer [c_custkey#1, c_name#2, c_address#3, c_nationkey#4, c_phone#5, c_acctbal#6, c_mktsegment#7, c_comment#8]',
        '-- bucket int32, count int64, pos decimal NULL, count int64',
      ),
    );
  });

  it('accepts columns functionally dependent on a grouped primary key, as PostgreSQL does', () => {
    expect(
      plan('SELECT c_custkey, c_name, count(*) FROM dbB.customer GROUP BY c_custkey ORDER BY c_acctbal')
        .split('\n')
        .slice(0, 5),
    ).toEqual([
      'Project c_custkey#1 := c_custkey#1, c_name#2 := c_name#2, count#9 := count#9',
      '  Sort c_acctbal#6 ASC NULLS LAST',
      '    Project c_custkey#1 := c_custkey#1, c_name#2 := c_name#2, count#9 := count#9, c_acctbal#6 := c_acctbal#6',
      '      Aggregate group=[c_custkey#1 := c_custkey#1, c_name#2 := c_name#2, c_acctbal#6 := c_acctbal#6] aggs=[count#9 := count_star()]',
      '        Scan dbB.public.customer AS customer [c_custkey#1, c_name#2, c_address#3, c_nationkey#4, c_phone#5, c_acctbal#6, c_mktsegment#7, c_comment#8]',
    ]);
  });

  it('rejects ungrouped columns with their position', () => {
    const e = failure('SELECT c_name, count(*)\nFROM dbB.customer GROUP BY c_nationkey');
    expect([e.kind, e.code, e.message]).toEqual([
      'user',
      'grouping_error',
      'column must appear in the GROUP BY clause or be used in an aggregate function',
    ]);
    expect(e.position).toEqual({ offset: 7, line: 1, column: 8, length: 6 });
    expect(failure('SELECT c_name FROM dbB.customer WHERE count(*) > 1').code).toBe('grouping_error');
  });

  it('binds DISTINCT, FETCH FIRST and UNION with ORDER BY/LIMIT hoisted over the whole set operation', () => {
    expect(plan('SELECT DISTINCT n_regionkey FROM dbD.nation ORDER BY 1 FETCH FIRST 3 ROWS ONLY')).toBe(
      lines(
        'Limit 3 OFFSET 0',
        '  Sort n_regionkey#3 ASC NULLS LAST',
        '    Distinct',
        '      Project n_regionkey#3 := n_regionkey#3',
        '        Scan dbD.jdv_d.nation AS nation [n_nationkey#1, n_name#2, n_regionkey#3, n_comment#4]',
        '-- n_regionkey int32',
      ),
    );
    expect(
      plan('SELECT c_custkey FROM dbB.customer UNION ALL SELECT c_acctbal FROM dbD.customer ORDER BY 1 DESC LIMIT 2'),
    ).toBe(
      lines(
        'Limit 2 OFFSET 0',
        '  Sort c_custkey#18 DESC NULLS FIRST',
        '    UNION ALL [c_custkey#18]',
        '      Project c_custkey#17 := CAST(c_custkey#1 AS decimal)',
        '        Project c_custkey#1 := c_custkey#1',
        '          Scan dbB.public.customer AS customer [c_custkey#1, c_name#2, c_address#3, c_nationkey#4, c_phone#5, c_acctbal#6, c_mktsegment#7, c_comment#8]',
        '      Project c_acctbal#14 := c_acctbal#14',
        '        Scan dbD.jdv_d.customer AS customer [c_custkey#9, c_name#10, c_address#11, c_nationkey#12, c_phone#13, c_acctbal#14, c_mktsegment#15, c_comment#16]',
        '-- c_custkey decimal',
      ),
    );
    expect(plan('SELECT 1 INTERSECT SELECT 2 EXCEPT ALL SELECT 3').split('\n')[0]).toBe('EXCEPT ALL [?column?#5]');
  });

  it('binds window functions over the grouped result', () => {
    expect(
      plan(
        'SELECT c_nationkey, sum(c_acctbal), rank() OVER (ORDER BY sum(c_acctbal) DESC) FROM dbB.customer GROUP BY c_nationkey',
      ),
    ).toBe(
      lines(
        'Project c_nationkey#4 := c_nationkey#4, sum#9 := sum#9, rank#10 := rank#10',
        '  Window rank#10 := rank() OVER (ORDER BY sum#9 DESC NULLS FIRST)',
        '    Aggregate group=[c_nationkey#4 := c_nationkey#4] aggs=[sum#9 := sum(c_acctbal#6)]',
        '      Scan dbB.public.customer AS customer [c_custkey#1, c_name#2, c_address#3, c_nationkey#4, c_phone#5, c_acctbal#6, c_mktsegment#7, c_comment#8]',
        '-- c_nationkey int32, sum decimal NULL, rank int64',
      ),
    );
  });

  it('binds VALUES and SELECT without FROM', () => {
    expect(plan("SELECT * FROM (VALUES (1, 'a'), (2.5, NULL)) AS v(x, y)")).toBe(
      lines(
        'Project x#1 := column1#1, y#2 := column2#2',
        '  Values 2 rows [column1#1, column2#2]',
        '-- x decimal, y text NULL',
      ),
    );
    expect(plan("SELECT 1 + 2 AS three, 'x' || 'y'")).toBe(
      lines("Project three#1 := 3, ?column?#2 := 'xy'", '  Values 1 rows []', '-- three int32, ?column? text'),
    );
  });
});

describe('binder: subqueries', () => {
  it('turns correlated EXISTS into a semi join on the correlation predicate', () => {
    expect(
      plan(
        'SELECT o_orderkey FROM dbA.orders o WHERE EXISTS (SELECT 1 FROM dbA.lineitem l WHERE l.l_orderkey = o.o_orderkey AND l_commitdate < l_receiptdate)',
      ),
    ).toBe(
      lines(
        'Project o_orderkey#1 := o_orderkey#1',
        '  Join semi ON (l_orderkey#10 = o_orderkey#1)',
        '    Scan dbA.public.orders AS o [o_orderkey#1, o_custkey#2, o_orderstatus#3, o_totalprice#4, o_orderdate#5, o_orderpriority#6, o_clerk#7, o_shippriority#8, o_comment#9]',
        '    Project ?column?#26 := 1, l_orderkey#10 := l_orderkey#10',
        '      Filter (l_commitdate#21 < l_receiptdate#22)',
        '        Scan dbA.public.lineitem AS l [l_orderkey#10, l_partkey#11, l_suppkey#12, l_linenumber#13, l_quantity#14, l_extendedprice#15, l_discount#16, l_tax#17, l_returnflag#18, l_linestatus#19, l_shipdate#20, l_commitdate#21, l_receiptdate#22, l_shipinstruct#23, l_shipmode#24, l_comment#25]',
        '-- o_orderkey int32',
      ),
    );
    expect(plan('SELECT r_name FROM dbD.region WHERE NOT EXISTS (SELECT 1 FROM dbD.nation)').split('\n')[1]).toBe(
      '  Join anti',
    );
  });

  it('turns IN (subquery) into a semi join and NOT IN into a NULL-aware anti join', () => {
    expect(
      plan(
        'SELECT c_name FROM dbB.customer WHERE c_custkey IN (SELECT o_custkey FROM dbA.orders WHERE o_totalprice > 1000)',
      )
        .split('\n')
        .slice(0, 3),
    ).toEqual([
      'Project c_name#2 := c_name#2',
      '  Join semi ON (c_custkey#1 = o_custkey#10)',
      '    Scan dbB.public.customer AS customer [c_custkey#1, c_name#2, c_address#3, c_nationkey#4, c_phone#5, c_acctbal#6, c_mktsegment#7, c_comment#8]',
    ]);
    // both sides NOT NULL: a plain anti join is exact
    expect(
      plan('SELECT c_name FROM dbB.customer WHERE c_custkey NOT IN (SELECT o_custkey FROM dbA.orders)').split('\n')[1],
    ).toBe('  Join anti ON (c_custkey#1 = o_custkey#10)');
    // a nullable side: any NULL makes NOT IN unknown, so such rows must not survive
    expect(
      plan('SELECT n_name FROM dbD.nation WHERE n_comment NOT IN (SELECT r_comment FROM dbD.region)').split('\n')[1],
    ).toBe('  Join anti ON (((n_comment#4 = r_comment#7) OR (n_comment#4 IS NULL)) OR (r_comment#7 IS NULL))');
  });

  it('reads = ANY (subquery) as IN and <> ALL (subquery) as NOT IN', () => {
    expect(
      plan('SELECT c_name FROM dbB.customer WHERE c_custkey = ANY (SELECT o_custkey FROM dbA.orders)').split('\n')[1],
    ).toBe('  Join semi ON (c_custkey#1 = o_custkey#10)');
    expect(
      plan('SELECT c_name FROM dbB.customer WHERE c_custkey <> ALL (SELECT o_custkey FROM dbA.orders)').split('\n')[1],
    ).toBe('  Join anti ON (c_custkey#1 = o_custkey#10)');
    // other quantified comparisons are values: a mark join on the negated comparison for ALL
    expect(plan('SELECT 1 FROM dbB.customer WHERE c_custkey > ALL (SELECT o_custkey FROM dbA.orders)').split('\n').slice(1, 3)).toEqual([
      '  Filter (NOT any#18)',
      '    MarkJoin any#18 ANY (c_custkey#1 <= o_custkey#10)',
    ]);
  });

  it('joins one-row scalar subqueries, keeps other uncorrelated ones as expressions, decorrelates aggregate ones into a left join', () => {
    expect(plan('SELECT c_name FROM dbB.customer WHERE c_acctbal > (SELECT avg(c_acctbal) FROM dbD.customer)')).toBe(
      lines(
        'Project c_name#2 := c_name#2',
        '  Filter (c_acctbal#6 > avg#17)',
        '    Join cross',
        '      Scan dbB.public.customer AS customer [c_custkey#1, c_name#2, c_address#3, c_nationkey#4, c_phone#5, c_acctbal#6, c_mktsegment#7, c_comment#8]',
        '      Project avg#17 := avg#17',
        '        Aggregate group=[] aggs=[avg#17 := avg(c_acctbal#14)]',
        '          Scan dbD.jdv_d.customer AS customer [c_custkey#9, c_name#10, c_address#11, c_nationkey#12, c_phone#13, c_acctbal#14, c_mktsegment#15, c_comment#16]',
        '-- c_name varchar(25)',
      ),
    );
    expect(
      plan('SELECT c_name FROM dbB.customer WHERE c_acctbal > (SELECT c_acctbal FROM dbD.customer LIMIT 1)').split(
        '\n',
      )[1],
    ).toBe('  Filter (c_acctbal#6 > (subquery Limit))');
    // HAVING: the one-row subquery joins above the Aggregate
    expect(
      plan(
        'SELECT c_nationkey FROM dbB.customer GROUP BY c_nationkey HAVING sum(c_acctbal) > (SELECT avg(c_acctbal) FROM dbD.customer)',
      )
        .split('\n')
        .slice(0, 4),
    ).toEqual([
      'Project c_nationkey#4 := c_nationkey#4',
      '  Filter (sum#9 > avg#18)',
      '    Join cross',
      '      Aggregate group=[c_nationkey#4 := c_nationkey#4] aggs=[sum#9 := sum(c_acctbal#6)]',
    ]);
    expect(
      plan(
        'SELECT p_partkey FROM dbC.part p WHERE p_retailprice > (SELECT count(*) FROM dbC.partsupp ps WHERE ps.ps_partkey = p.p_partkey)',
      ),
    ).toBe(
      lines(
        'Project p_partkey#1 := p_partkey#1',
        '  Filter (p_retailprice#8 > CAST(coalesce(count#15, 0) AS decimal))',
        '    Join left ON (p_partkey#1 = ps_partkey#10)',
        '      Scan dbC.tpch.dbo.part AS p [p_partkey#1, p_name#2, p_mfgr#3, p_brand#4, p_type#5, p_size#6, p_container#7, p_retailprice#8, p_comment#9]',
        '      Project count#15 := count#15, ps_partkey#10 := ps_partkey#10',
        '        Aggregate group=[ps_partkey#10 := ps_partkey#10] aggs=[count#15 := count_star()]',
        '          Scan dbC.tpch.dbo.partsupp AS ps [ps_partkey#10, ps_suppkey#11, ps_availqty#12, ps_supplycost#13, ps_comment#14]',
        '-- p_partkey int32',
      ),
    );
  });

  it('rejects correlation it cannot decorrelate, pointing at the subquery', () => {
    const e = failure(
      'SELECT c_name FROM dbB.customer c WHERE c_acctbal > (SELECT o_totalprice FROM dbA.orders o WHERE o.o_custkey = c.c_custkey LIMIT 1)',
    );
    expect([e.kind, e.code, e.message]).toEqual([
      'unsupported',
      'feature_not_supported',
      'a correlated scalar subquery without an aggregate but with LIMIT, OFFSET, FETCH, DISTINCT or window functions is not supported',
    ]);
    expect(e.position?.line).toBe(1);
    // correlated with a grouped query, a subquery may read only its group keys
    const ungrouped = failure(
      'SELECT c_nationkey, count(*) FROM dbB.customer c GROUP BY c_nationkey HAVING EXISTS (SELECT 1 FROM dbA.orders o WHERE o.o_custkey > c.c_acctbal)',
    );
    expect([ungrouped.kind, ungrouped.code, ungrouped.position?.column]).toEqual(['user', 'grouping_error', 133]);
  });

  it('binds a correlated scalar subquery that may find several rows: one group per outer row, its value raising on two', () => {
    expect(plan('SELECT c_custkey, (SELECT n_name FROM dbD.nation n WHERE n.n_regionkey = c.c_nationkey) FROM dbB.customer c')).toBe(
      lines(
        'Project c_custkey#1 := c_custkey#1, ?column?#17 := CASE WHEN (?matches?#14 > 1) THEN raise(cardinality_violation) ELSE n_name#15 END',
        '  Project c_custkey#1 := c_custkey#1, c_name#2 := c_name#2, c_address#3 := c_address#3, c_nationkey#4 := c_nationkey#4, c_phone#5 := c_phone#5, c_acctbal#6 := c_acctbal#6, c_mktsegment#7 := c_mktsegment#7, c_comment#8 := c_comment#8, ?matches?#14 := ?matches?#14, n_name#15 := n_name#15',
        '    Aggregate group=[?row?#16 := ?row?#16, c_custkey#1 := c_custkey#1, c_name#2 := c_name#2, c_address#3 := c_address#3, c_nationkey#4 := c_nationkey#4, c_phone#5 := c_phone#5, c_acctbal#6 := c_acctbal#6, c_mktsegment#7 := c_mktsegment#7, c_comment#8 := c_comment#8] aggs=[?matches?#14 := count(?matched?#13), n_name#15 := min(n_name#10)]',
        '      Join left ON (n_regionkey#11 = c_nationkey#4)',
        '        Window ?row?#16 := row_number() OVER ()',
        '          Scan dbB.public.customer AS c [c_custkey#1, c_name#2, c_address#3, c_nationkey#4, c_phone#5, c_acctbal#6, c_mktsegment#7, c_comment#8]',
        '        Project n_name#10 := n_name#10, n_regionkey#11 := n_regionkey#11, ?matched?#13 := true::bool',
        '          Project n_name#10 := n_name#10, n_regionkey#11 := n_regionkey#11',
        '            Scan dbD.jdv_d.nation AS n [n_nationkey#9, n_name#10, n_regionkey#11, n_comment#12]',
        '-- c_custkey int32, ?column? char(25) NULL',
      ),
    );
  });

  it('binds NOT EXISTS reading the query two levels up as marks over the numbered outer rows, counted per row', () => {
    expect(
      plan(
        'SELECT c_custkey FROM dbB.customer c WHERE NOT EXISTS (SELECT 1 FROM dbA.orders o WHERE o.o_custkey = c.c_custkey AND NOT EXISTS (SELECT 1 FROM dbD.nation n WHERE n.n_nationkey = c.c_nationkey AND n.n_regionkey = o.o_orderkey))',
      ),
    ).toBe(
      lines(
        'Project c_custkey#1 := c_custkey#1',
        '  Project c_custkey#1 := c_custkey#1, c_name#2 := c_name#2, c_address#3 := c_address#3, c_nationkey#4 := c_nationkey#4, c_phone#5 := c_phone#5, c_acctbal#6 := c_acctbal#6, c_mktsegment#7 := c_mktsegment#7, c_comment#8 := c_comment#8',
        '    Filter (?matches?#24 = 0)',
        '      Aggregate group=[?row?#26 := ?row?#26, c_custkey#1 := c_custkey#1, c_name#2 := c_name#2, c_address#3 := c_address#3, c_nationkey#4 := c_nationkey#4, c_phone#5 := c_phone#5, c_acctbal#6 := c_acctbal#6, c_mktsegment#7 := c_mktsegment#7, c_comment#8 := c_comment#8] aggs=[?matches?#24 := count(?matched?#25) FILTER ((NOT exists#27))]',
        '        MarkJoin exists#27 EXISTS WHERE ((n_nationkey#18 = c_nationkey#4) AND (n_regionkey#20 = o_orderkey#9))',
        '          Join left ON (o_custkey#10 = c_custkey#1)',
        '            Window ?row?#26 := row_number() OVER ()',
        '              Scan dbB.public.customer AS c [c_custkey#1, c_name#2, c_address#3, c_nationkey#4, c_phone#5, c_acctbal#6, c_mktsegment#7, c_comment#8]',
        '            Project ?column?#23 := ?column?#23, o_custkey#10 := o_custkey#10, o_orderkey#9 := o_orderkey#9, ?matched?#25 := true::bool',
        '              Project ?column?#23 := 1, o_custkey#10 := o_custkey#10, o_orderkey#9 := o_orderkey#9',
        '                Scan dbA.public.orders AS o [o_orderkey#9, o_custkey#10, o_orderstatus#11, o_totalprice#12, o_orderdate#13, o_orderpriority#14, o_clerk#15, o_shippriority#16, o_comment#17]',
        '          Project ?column?#22 := 1, n_nationkey#18 := n_nationkey#18, n_regionkey#20 := n_regionkey#20',
        '            Scan dbD.jdv_d.nation AS n [n_nationkey#18, n_name#19, n_regionkey#20, n_comment#21]',
        '-- c_custkey int32',
      ),
    );
  });

  it('binds IN (subquery) under OR as a mark join whose mark the filter reads', () => {
    expect(plan('SELECT 1 FROM dbB.customer WHERE c_custkey = 1 OR c_custkey IN (SELECT o_custkey FROM dbA.orders)')).toBe(
      lines(
        'Project ?column?#19 := 1',
        '  Filter ((c_custkey#1 = 1) OR any#18)',
        '    MarkJoin any#18 ANY (c_custkey#1 = o_custkey#10)',
        '      Scan dbB.public.customer AS customer [c_custkey#1, c_name#2, c_address#3, c_nationkey#4, c_phone#5, c_acctbal#6, c_mktsegment#7, c_comment#8]',
        '      Project o_custkey#10 := o_custkey#10',
        '        Scan dbA.public.orders AS orders [o_orderkey#9, o_custkey#10, o_orderstatus#11, o_totalprice#12, o_orderdate#13, o_orderpriority#14, o_clerk#15, o_shippriority#16, o_comment#17]',
        '-- ?column? int32',
      ),
    );
  });

  it('inlines CTEs at each reference with fresh ids', () => {
    expect(plan('WITH t AS (SELECT n_regionkey AS r FROM dbD.nation) SELECT a.r FROM t a, t b WHERE a.r = b.r')).toBe(
      lines(
        'Project r#3 := r#3',
        '  Filter (r#3 = r#7)',
        '    Join cross',
        '      Project r#3 := n_regionkey#3',
        '        Scan dbD.jdv_d.nation AS nation [n_nationkey#1, n_name#2, n_regionkey#3, n_comment#4]',
        '      Project r#7 := n_regionkey#7',
        '        Scan dbD.jdv_d.nation AS nation [n_nationkey#5, n_name#6, n_regionkey#7, n_comment#8]',
        '-- r int32',
      ),
    );
  });
});

describe('binder: views, names and access', () => {
  it('expands views over views', () => {
    expect(plan('SELECT * FROM sales.rich_keys')).toBe(
      lines(
        'Project k#1 := k#1',
        '  Project [barrier sales.rich_keys] k#1 := k#1',
        '    Project [barrier sales.rich] k#1 := c_custkey#1, c_name#2 := c_name#2',
        "      Filter (c_acctbal#6 > '1000'::decimal)",
        '        Scan dbB.public.customer AS customer [c_custkey#1, c_name#2, c_address#3, c_nationkey#4, c_phone#5, c_acctbal#6, c_mktsegment#7, c_comment#8]',
        '-- k int32',
      ),
    );
  });

  it('rejects view cycles and reports errors inside a view at the reference', () => {
    const cycle = failure('SELECT * FROM cyc.a');
    expect([cycle.code, cycle.message]).toEqual([
      'view_cycle',
      'view cyc.a refers to itself (through cyc.a → cyc.b → cyc.a)',
    ]);
    expect(cycle.position).toEqual({ offset: 14, line: 1, column: 15, length: 5 });
    const broken = failure('SELECT *\nFROM broken.v');
    expect([broken.code, broken.message]).toEqual([
      'undefined_column',
      'in view broken.v: column "nope" does not exist',
    ]);
    expect(broken.position).toEqual({ offset: 14, line: 2, column: 6, length: 8 });
  });

  it('resolves names case-insensitively and 4-part SQL Server names, with did-you-mean on typos', () => {
    expect(plan('SELECT P_NAME FROM DBC.TPCH.DBO.PART').split('\n')[0]).toBe('Project p_name#2 := p_name#2');
    const col = failure('SELECT c_nme FROM dbB.customer');
    expect([col.code, col.message, col.position?.column]).toEqual([
      'undefined_column',
      'column "c_nme" does not exist; did you mean "c_name"?',
      8,
    ]);
    const tab = failure('SELECT 1 FROM dbB.custome');
    expect([tab.code, tab.message, tab.position?.column]).toEqual([
      'unknown_table',
      'relation "dbB.custome" does not exist; did you mean "dbB.customer"?',
      15,
    ]);
    const amb = failure('SELECT c_custkey FROM dbB.customer, dbD.customer d');
    expect([amb.code, amb.position?.column]).toEqual(['ambiguous_column', 8]);
  });

  it("ORDER BY a name two output columns carry is ambiguous, as in PostgreSQL; the same column twice is not", () => {
    const e = failure('SELECT c_custkey, c_name AS c_custkey FROM dbB.customer ORDER BY c_custkey');
    expect([e.kind, e.code, e.message, e.position?.column]).toEqual(['user', 'ambiguous_column', 'ORDER BY "c_custkey" is ambiguous', 66]);
    expect(plan('SELECT c_custkey, c_custkey FROM dbB.customer ORDER BY c_custkey')).toContain('Sort c_custkey#1 ASC NULLS LAST');
    // an output name that is not an input column still orders by the output column
    expect(plan('SELECT c_nationkey, count(*) FROM dbB.customer GROUP BY c_nationkey ORDER BY count')).toContain('Sort count#9 ASC NULLS LAST');
  });

  it('checks access before binding anything else; a granted view covers what it reads', () => {
    const access: AccessPolicy = { canReadSource: (s) => s === 'dbA', canReadView: (schema) => schema === 'sales' };
    const e = failure('SELECT * FROM dbA.orders, dbB.customer', { access });
    expect([e.kind, e.code, e.position?.column]).toEqual(['forbidden', 'access_denied', 27]);
    expect(plan('SELECT k FROM sales.rich', { access }).split('\n')[0]).toBe('Project k#1 := k#1');
  });

  it('reports unsupported SQL with kind unsupported and its position', () => {
    const e = failure("SELECT c_name\nFROM dbB.customer\nWHERE c_name SIMILAR TO 'a%'");
    expect([e.kind, e.code, e.message]).toEqual([
      'unsupported',
      'feature_not_supported',
      'SIMILAR TO is not supported',
    ]);
    expect(e.position).toEqual({ offset: 38, line: 3, column: 7, length: 22 });
    expect(failure('WITH RECURSIVE t AS (SELECT 1) SELECT * FROM t').kind).toBe('unsupported');
    expect(failure('INSERT INTO dbA.orders VALUES (1)').kind).toBe('unsupported');
    const del = failure('DELETE FROM dbA.orders WHERE o_orderkey = 1');
    expect([del.kind, del.code, del.message, del.position?.offset]).toEqual([
      'unsupported',
      'feature_not_supported',
      'DELETE cannot be run here: Junction answers queries only (SELECT, VALUES, WITH); change data in the source itself',
      0,
    ]);
    expect(failure('CREATE TABLE t (a int)').message).toMatch(/^CREATE TABLE cannot be run here: /);
  });

  it('reports type errors as user errors', () => {
    const e = failure("SELECT 1 FROM dbA.orders WHERE o_orderdate < 'yesterday-ish'");
    expect([e.kind, e.code, e.position?.column]).toEqual(['user', 'invalid_datetime_format', 46]);
    const op = failure('SELECT 1 FROM dbA.orders WHERE o_orderdate = o_orderkey');
    expect([op.kind, op.message]).toEqual(['user', 'operator does not exist: date = int32; add an explicit cast']);
  });
});
