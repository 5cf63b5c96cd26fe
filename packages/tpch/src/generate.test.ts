import type { Row } from '@junction/connectors';
import { describe, expect, it } from 'vitest';
import { expectedRowCount, generateTable, orderKey, partSuppliers, retailPriceCents, scaleOf } from './generate.js';
import { TABLES, TABLE_NAMES, type TableName } from './schema.js';
import * as v from './vocabulary.js';

function all(
  table: TableName,
  sf: number,
  extra: { seed?: number; batchSize?: number; from?: number; to?: number } = {},
): Row[] {
  const out: Row[] = [];
  for (const batch of generateTable(table, { sf, ...extra })) out.push(...batch);
  return out;
}

const SF = 0.01;
const rows = Object.fromEntries(TABLE_NAMES.map((t) => [t, all(t, SF)])) as Record<TableName, Row[]>;

function column(table: TableName, name: string): number {
  const i = TABLES[table].columns.findIndex((c) => c.name === name);
  if (i < 0) throw new Error(`no column ${table}.${name}`);
  return i;
}

function values(table: TableName, name: string): Row[number][] {
  const i = column(table, name);
  return rows[table].map((r) => r[i]);
}

const DECIMAL = /^-?\d+\.\d\d$/;
const cents = (s: unknown): number => Math.round(Number(s) * 100);
const day = (s: unknown): number => Date.parse(`${String(s)}T00:00:00Z`) / 86_400_000;
const padded = (list: readonly string[], n: number) => new Set(list.map((s) => s.padEnd(n)));

describe('determinism', () => {
  it('gives the exact same first rows for SF 0.001 and the default seed', () => {
    const first = Object.fromEntries(TABLE_NAMES.map((t) => [t, all(t, 0.001).slice(0, 2)]));
    expect(first).toEqual(GOLDEN_SF0001);
  });

  it('gives identical rows for the same seed, whatever the batch size or slicing', () => {
    for (const table of ['orders', 'lineitem', 'partsupp', 'supplier'] as const) {
      const again = all(table, SF, { batchSize: 7 });
      expect(again).toEqual(rows[table]);
      const sliced = [...all(table, SF, { to: 333 }), ...all(table, SF, { from: 333 })];
      expect(sliced).toEqual(rows[table]);
    }
  });

  it('gives different rows for another seed, with the same keys', () => {
    const other = all('customer', SF, { seed: 7 });
    expect(other.map((r) => r[0])).toEqual(values('customer', 'c_custkey'));
    expect(other.map((r) => r[2])).not.toEqual(values('customer', 'c_address'));
  });
});

describe('cardinalities', () => {
  it('follows dbgen at SF 0.01', () => {
    const counts = Object.fromEntries(TABLE_NAMES.map((t) => [t, rows[t].length]));
    expect(counts).toEqual({
      region: 5,
      nation: 25,
      supplier: 100,
      part: 2000,
      partsupp: 8000,
      customer: 1500,
      orders: 15000,
      lineitem: expectedRowCount('lineitem', SF),
    });
    // 1 to 7 lines per order, 4 on average
    expect(rows.lineitem.length / rows.orders.length).toBeGreaterThan(3.9);
    expect(rows.lineitem.length / rows.orders.length).toBeLessThan(4.1);
  });

  it('rejects scale factors outside 0.001..10', () => {
    expect(() => scaleOf(0)).toThrow(RangeError);
    expect(() => scaleOf(10.5)).toThrow(RangeError);
    expect(scaleOf(10).orders).toBe(15_000_000);
  });
});

describe('value model', () => {
  it('matches every column type: ints, exact decimal text, dates, blank-padded char(n)', () => {
    const bad: string[] = [];
    for (const table of TABLE_NAMES) {
      TABLES[table].columns.forEach((c, i) => {
        for (const row of rows[table]) {
          const value = row[i];
          let ok: boolean;
          switch (c.type.kind) {
            case 'int32':
              ok = Number.isInteger(value);
              break;
            case 'decimal':
              ok = typeof value === 'string' && DECIMAL.test(value);
              break;
            case 'date':
              ok = typeof value === 'string' && /^199\d-\d\d-\d\d$/.test(value);
              break;
            case 'string':
              ok =
                typeof value === 'string' &&
                (c.type.fixed ? value.length === c.type.length : value.length <= (c.type.length ?? Infinity));
              break;
            default:
              ok = false;
          }
          if (!ok || row.length !== TABLES[table].columns.length)
            bad.push(`${table}.${c.name}=${JSON.stringify(value)}`);
        }
      });
    }
    expect(bad.slice(0, 5)).toEqual([]);
  });
});

describe('domains', () => {
  it('region and nation are the specification fixed rows', () => {
    expect(rows.region.map((r) => [r[0], (r[1] as string).trimEnd()])).toEqual(v.REGIONS.map((n, i) => [i, n]));
    expect(rows.nation.map((r) => [r[0], (r[1] as string).trimEnd(), r[2]])).toEqual(
      v.NATIONS.map(([n, rk], i) => [i, n, rk]),
    );
  });

  it('part: names of five distinct colors, manufacturer/brand pairing, types, containers, retail price formula', () => {
    expect(values('part', 'p_partkey')).toEqual(Array.from({ length: 2000 }, (_, i) => i + 1));
    const types = new Set(v.TYPE_S1.flatMap((a) => v.TYPE_S2.flatMap((b) => v.TYPE_S3.map((c) => `${a} ${b} ${c}`))));
    const containers = padded(
      v.CONTAINER_S1.flatMap((a) => v.CONTAINER_S2.map((b) => `${a} ${b}`)),
      10,
    );
    const bad: string[] = [];
    for (const r of rows.part) {
      const [key, name, mfgr, brand, type, size, container, price, comment] = r as [
        number,
        string,
        string,
        string,
        string,
        number,
        string,
        string,
        string,
      ];
      const words = name.split(' ');
      const m = /^Manufacturer#([1-5]) *$/.exec(mfgr)?.[1];
      const checks: [boolean, string][] = [
        [words.length === 5 && new Set(words).size === 5 && words.every((w) => v.COLORS.includes(w)), 'name'],
        [m !== undefined && new RegExp(`^Brand#${m}[1-5]  $`).test(brand), 'mfgr/brand'],
        [types.has(type), 'type'],
        [size >= 1 && size <= 50, 'size'],
        [containers.has(container), 'container'],
        [cents(price) === 90000 + (Math.floor(key / 10) % 20001) + 100 * (key % 1000), 'retailprice'],
        [comment.length >= 5 && comment.length <= 22, 'comment'],
      ];
      for (const [ok, what] of checks) if (!ok) bad.push(`part ${key}: ${what}`);
    }
    expect(bad.slice(0, 5)).toEqual([]);
    expect(retailPriceCents(1)).toBe(90100);
    expect(retailPriceCents(200000)).toBe(110000);
  });

  it('supplier and customer: names, nations, phones with the nation prefix, account balances', () => {
    for (const [table, prefix, width] of [
      ['supplier', 'Supplier#', 25],
      ['customer', 'Customer#', 0],
    ] as const) {
      const t = table as TableName;
      const bad = rows[t].filter((r, i) => {
        const nation = r[3] as number;
        return !(
          r[0] === i + 1 &&
          r[1] === `${prefix}${String(i + 1).padStart(9, '0')}`.padEnd(width) &&
          (r[2] as string).length >= 10 &&
          nation >= 0 &&
          nation <= 24 &&
          new RegExp(`^${nation + 10}-[1-9]\\d\\d-[1-9]\\d\\d-[1-9]\\d\\d\\d$`).test(r[4] as string) &&
          cents(r[5]) >= -99999 &&
          cents(r[5]) <= 999999
        );
      });
      expect(bad.slice(0, 3)).toEqual([]);
    }
    const segments = padded(v.SEGMENTS, 10);
    for (const s of values('customer', 'c_mktsegment')) expect(segments.has(s as string)).toBe(true);
    expect(new Set(values('customer', 'c_mktsegment')).size).toBe(5);
  });

  it('supplier comments carry the Customer…Complaints / Recommends phrases at about 10 per 10,000', () => {
    const comments = all('supplier', 10, { to: 100_000 }).map((r) => r[6] as string);
    const complaints = comments.filter((c) => /Customer .*Complaints/.test(c)).length;
    const recommends = comments.filter((c) => /Customer .*Recommends/.test(c)).length;
    expect(complaints).toBeGreaterThan(25);
    expect(complaints).toBeLessThan(80);
    expect(recommends).toBeGreaterThan(25);
    expect(recommends).toBeLessThan(80);
    expect(Math.max(...comments.map((c) => c.length))).toBe(100);
  });

  it('partsupp: four distinct suppliers per part by the spec formula, quantities and costs in range', () => {
    const byPart = new Map<number, number[]>();
    for (const [pk, sk, qty, cost] of rows.partsupp as [number, number, number, string][]) {
      byPart.set(pk, [...(byPart.get(pk) ?? []), sk]);
      expect(qty).toBeGreaterThanOrEqual(1);
      expect(qty).toBeLessThanOrEqual(9999);
      expect(cents(cost)).toBeGreaterThanOrEqual(100);
      expect(cents(cost)).toBeLessThanOrEqual(100000);
    }
    expect(byPart.size).toBe(2000);
    for (const [pk, sks] of byPart) {
      expect(new Set(sks).size).toBe(4);
      // S = 100 is large enough for the formula never to repeat a supplier
      expect(sks).toEqual([0, 1, 2, 3].map((i) => ((pk + i * (25 + Math.floor((pk - 1) / 100))) % 100) + 1));
    }
  });

  it('keeps (ps_partkey, ps_suppkey) unique at SF 0.001, where the formula alone would repeat suppliers', () => {
    const keys = all('partsupp', 0.001).map((r) => `${r[0]}/${r[1]}`);
    expect(new Set(keys).size).toBe(800);
    expect(partSuppliers(31, 10)).toEqual([2, 7, 3, 8]);
  });

  it('orders: sparse keys, customers not divisible by 3, dates, priorities, clerks, status and total from the lines', () => {
    expect(values('orders', 'o_orderkey').slice(0, 10)).toEqual([1, 2, 3, 4, 5, 6, 7, 32, 33, 34]);
    expect(orderKey(1_499_999)).toBe(6_000_000);
    expect(values('orders', 'o_orderkey').at(-1)).toBe(60_000);
    const priorities = padded(v.PRIORITIES, 15);
    const lines = new Map<number, Row[]>();
    for (const l of rows.lineitem) lines.set(l[0] as number, [...(lines.get(l[0] as number) ?? []), l]);
    const bad: string[] = [];
    for (const o of rows.orders) {
      const [key, cust, status, total, date, priority, clerk, shipprio, comment] = o as [
        number, number, string, string, string, string, string, number, string,
      ]; // prettier-ignore
      const mine = lines.get(key) ?? [];
      const statuses = new Set(mine.map((l) => l[9]));
      const expectedTotal = mine.reduce((sum, l) => {
        const ext = cents(l[5]);
        return sum + Math.floor((Math.floor((ext * (100 - cents(l[6]))) / 100) * (100 + cents(l[7]))) / 100);
      }, 0);
      const checks: [boolean, string][] = [
        [key % 32 < 8, 'sparse key'],
        [cust % 3 !== 0 && cust >= 1 && cust <= 1500, 'custkey'],
        [date >= '1992-01-01' && date <= '1998-08-02', 'orderdate'],
        [priorities.has(priority), 'priority'],
        [/^Clerk#0000000(0[1-9]|10)$/.test(clerk), 'clerk'],
        [shipprio === 0, 'shippriority'],
        [comment.length >= 19 && comment.length <= 78, 'comment'],
        [mine.length >= 1 && mine.length <= 7, 'line count'],
        [mine.every((l, i) => l[3] === i + 1), 'line numbers'],
        [status === (statuses.size === 2 ? 'P' : statuses.has('O') ? 'O' : 'F'), 'status'],
        [cents(total) === expectedTotal, 'totalprice'],
      ];
      for (const [ok, what] of checks) if (!ok) bad.push(`order ${key}: ${what}`);
    }
    expect(bad.slice(0, 5)).toEqual([]);
    expect(new Set(values('orders', 'o_orderstatus'))).toEqual(new Set(['F', 'O', 'P']));
  });

  it('lineitem: suppliers of the part, prices, discounts, taxes and the specification date derivations', () => {
    const orderDate = new Map(rows.orders.map((o) => [o[0] as number, day(o[4])]));
    const partsupp = new Set(rows.partsupp.map((r) => `${r[0]}/${r[1]}`));
    const current = day('1995-06-17');
    const instructs = padded(v.INSTRUCTIONS, 25);
    const modes = padded(v.MODES, 10);
    const bad: string[] = [];
    for (const l of rows.lineitem) {
      const [ok, pk, sk, ln, qty, ext, disc, tax, flag, status, ship, commit, receipt, instruct, mode, comment] =
        l as string[];
      const o = orderDate.get(Number(ok)) as number;
      const q = cents(qty) / 100;
      const checks: [boolean, string][] = [
        [partsupp.has(`${pk}/${sk}`), 'part/supplier pair'],
        [Number.isInteger(q) && q >= 1 && q <= 50, 'quantity'],
        [cents(ext) === q * retailPriceCents(Number(pk)), 'extendedprice'],
        [cents(disc) >= 0 && cents(disc) <= 10, 'discount'],
        [cents(tax) >= 0 && cents(tax) <= 8, 'tax'],
        [day(ship) - o >= 1 && day(ship) - o <= 121, 'shipdate'],
        [day(commit) - o >= 30 && day(commit) - o <= 90, 'commitdate'],
        [day(receipt) - day(ship) >= 1 && day(receipt) - day(ship) <= 30, 'receiptdate'],
        [receipt <= '1998-12-31', 'receipt before ENDDATE'],
        [day(receipt) <= current ? flag === 'R' || flag === 'A' : flag === 'N', 'returnflag'],
        [status === (day(ship) > current ? 'O' : 'F'), 'linestatus'],
        [instructs.has(instruct) && modes.has(mode), 'instruction/mode'],
        [comment.length >= 10 && comment.length <= 43, 'comment'],
      ];
      for (const [good, what] of checks) if (!good) bad.push(`lineitem ${ok}/${ln}: ${what}`);
    }
    expect(bad.slice(0, 5)).toEqual([]);
    expect(new Set(values('lineitem', 'l_returnflag'))).toEqual(new Set(['R', 'A', 'N']));
  });

  it('comments come from the grammar: TPC-H Q13 and Q16 phrases occur', () => {
    const orderComments = values('orders', 'o_comment') as string[];
    const special = orderComments.filter((c) => /special.*requests/.test(c)).length;
    expect(special).toBeGreaterThan(50);
    expect(special).toBeLessThan(orderComments.length / 10);
    expect(orderComments.some((c) => /\b(furiously|slyly|carefully)\b/.test(c))).toBe(true);
  });
});

const GOLDEN_SF0001 = {
  region: [
    [0, 'AFRICA                   ', 'posits are blithely. blithely pendi'],
    [1, 'AMERICA                  ', 'ts sleep furiously across the forges. furiously bold instructions cajole carefu'],
  ],
  nation: [
    [0, 'ALGERIA                  ', 0, 's! fluffily even Tiresias according to th'],
    [
      1,
      'ARGENTINA                ',
      1,
      'sauternes sleep. foxes sleep slowly alongside of the regular packages. fluffily regular cou',
    ],
  ],
  supplier: [
    [
      1,
      'Supplier#000000001       ',
      '.sicu73WMv018IM64V8VypmN.Q14',
      24,
      '34-621-941-7513',
      '7787.21',
      'c instructions grow slyly. ironic frets haggle c',
    ],
    [
      2,
      'Supplier#000000002       ',
      ',4ES.zolEcJx,A6DQtUYl33gqIMGrmCop3oki0q',
      18,
      '28-142-530-5888',
      '59.15',
      'y express accounts. final ideas could have to sleep closely alo',
    ],
  ],
  part: [
    [
      1,
      'midnight navajo lemon floral gainsboro',
      'Manufacturer#2           ',
      'Brand#23  ',
      'MEDIUM ANODIZED STEEL',
      6,
      'JUMBO PKG ',
      '901.00',
      'its det',
    ],
    [
      2,
      'peru dodger moccasin yellow khaki',
      'Manufacturer#5           ',
      'Brand#52  ',
      'LARGE POLISHED TIN',
      42,
      'SM DRUM   ',
      '902.00',
      ' quickl',
    ],
  ],
  partsupp: [
    [
      1,
      2,
      3719,
      '846.35',
      ' the regular requests. quickly even foxes cajole daringly. silent pinto beans integrate special, close accounts. regular instructions wake slyly among the pending, final dep',
    ],
    [
      1,
      4,
      1425,
      '822.12',
      'final deposits integrate blithely among the fluffily unusual instructions. regular accounts are bli',
    ],
  ],
  customer: [
    [
      1,
      'Customer#000000001',
      'EUZnXl9Aunr',
      4,
      '14-431-587-2567',
      '-54.98',
      'HOUSEHOLD ',
      'are furiously blithely even requests. slyly ironic pinto beans above the even, fluffy requests wa',
    ],
    [
      2,
      'Customer#000000002',
      'cf1S4m,BPbLzOfcS4GAmTI1H37U',
      3,
      '13-236-742-4645',
      '4858.00',
      'HOUSEHOLD ',
      '. pending deposits use slyly. carefully pending accounts play furiou',
    ],
  ],
  orders: [
    [
      1,
      11,
      'F',
      '31585.71',
      '1994-12-18',
      '5-LOW          ',
      'Clerk#000000001',
      0,
      ' regular foxes. blithely even pinto beans across the furiously reg',
    ],
    [
      2,
      20,
      'O',
      '185451.99',
      '1995-07-18',
      '5-LOW          ',
      'Clerk#000000001',
      0,
      'uriously before the fluffily pending requests. blithely special pac',
    ],
  ],
  lineitem: [
    [
      1,
      124,
      9,
      1,
      '3.00',
      '3072.36',
      '0.01',
      '0.03',
      'A',
      'F',
      '1995-01-07',
      '1995-02-22',
      '1995-02-05',
      'TAKE BACK RETURN         ',
      'MAIL      ',
      'the slyly pending packages. ir',
    ],
    [
      1,
      179,
      9,
      2,
      '27.00',
      '29137.59',
      '0.07',
      '0.05',
      'R',
      'F',
      '1995-04-04',
      '1995-02-23',
      '1995-05-01',
      'NONE                     ',
      'REG AIR   ',
      'y special accounts alongside ',
    ],
  ],
};
