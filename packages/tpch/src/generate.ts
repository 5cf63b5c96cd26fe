import type { Row } from '@junction/connectors';
import { Rng, WeightedList } from './random.js';
import { rowCount, type TableName } from './schema.js';
import * as v from './vocabulary.js';

/**
 * A TPC-H-like generator following the specification's clause 4.2.3 (dbgen's value
 * domains): sparse order keys, the date derivations of lineitem, the vocabularies, the
 * retail price formula, phone numbers with a nation prefix and comments cut from a text
 * pool built by dbgen's grammar. Values follow Junction's value model: decimals as exact
 * strings ("123.45"), dates as 'YYYY-MM-DD', char(n) blank-padded to n.
 *
 * Deterministic: a row depends only on (seed, table, row ordinal), never on batching.
 */
export interface GenerateOptions {
  /** scale factor, 0.001–10 (SF 1 = 6,001,215-ish lineitems) */
  readonly sf: number;
  readonly seed?: number;
  /** rows per batch, default 4096 */
  readonly batchSize?: number;
  /**
   * Generate only a slice, as ordinals [from, to) of the table's driving entity: parts for
   * part/partsupp, orders for orders/lineitem, rows otherwise. Slices of one table are
   * disjoint and together give the whole table, so loads can run them in parallel.
   */
  readonly from?: number;
  readonly to?: number;
}

export const DEFAULT_SEED = 19920101;
/**
 * Bump whenever the rows generated for a (sf, seed) change: loads record it in their marker,
 * so data from an older generator is reloaded instead of silently mixed with new data.
 */
export const GENERATOR_VERSION = '1';
export const MIN_SF = 0.001;
export const MAX_SF = 10;

const SALT = {
  region: 1,
  nation: 2,
  supplier: 3,
  part: 4,
  partsupp: 5,
  customer: 6,
  orders: 7,
  pool: 8,
  complaints: 9,
  lines: 10,
} as const;

// ---------------------------------------------------------------- dates

const DAY_MS = 86_400_000;
const EPOCH = Date.UTC(1992, 0, 1);
/** STARTDATE 1992-01-01 = day 0 */
const START_DAY = 0;
/** ENDDATE 1998-12-31 */
const END_DAY = (Date.UTC(1998, 11, 31) - EPOCH) / DAY_MS;
/** CURRENTDATE 1995-06-17: decides return flags and line status */
export const CURRENT_DAY = (Date.UTC(1995, 5, 17) - EPOCH) / DAY_MS;
/** orders are dated up to ENDDATE - 151 days, so every derived lineitem date stays in range */
const LAST_ORDER_DAY = END_DAY - 151;

const DATE_TEXT: readonly string[] = (() => {
  const out: string[] = [];
  for (let d = START_DAY; d <= END_DAY + 1; d++) out.push(new Date(EPOCH + d * DAY_MS).toISOString().slice(0, 10));
  return out;
})();

// ---------------------------------------------------------------- value formatting

/** integer hundredths to exact decimal text: -1 → "-0.01" */
export function cents(value: number): string {
  const neg = value < 0;
  const a = neg ? -value : value;
  const frac = a % 100;
  return (neg ? '-' : '') + Math.floor(a / 100) + (frac < 10 ? '.0' : '.') + frac;
}

function pad(text: string, width: number): string {
  return text.length >= width ? text : text + ' '.repeat(width - text.length);
}

function digits9(n: number): string {
  const s = String(n);
  return s.length >= 9 ? s : '000000000'.slice(s.length) + s;
}

const CENTS_0_TO_100: readonly string[] = Array.from({ length: 101 }, (_, i) => cents(i));
const QUANTITY_TEXT: readonly string[] = Array.from({ length: 51 }, (_, i) => cents(i * 100));
const PRIORITY_TEXT = v.PRIORITIES.map((p) => pad(p, 15));
const SEGMENT_TEXT = v.SEGMENTS.map((s) => pad(s, 10));
const INSTRUCTION_TEXT = v.INSTRUCTIONS.map((s) => pad(s, 25));
const MODE_TEXT = v.MODES.map((s) => pad(s, 10));
const NATION_TEXT = v.NATIONS.map(([n]) => pad(n, 25));
const REGION_TEXT = v.REGIONS.map((r) => pad(r, 25));
const MFGR_TEXT = [1, 2, 3, 4, 5].map((m) => pad(`Manufacturer#${m}`, 25));
const CONTAINER_TEXT = v.CONTAINER_S1.flatMap((a) => v.CONTAINER_S2.map((b) => pad(`${a} ${b}`, 10)));
const TYPE_TEXT = v.TYPE_S1.flatMap((a) => v.TYPE_S2.flatMap((b) => v.TYPE_S3.map((c) => `${a} ${b} ${c}`)));
const BRAND_TEXT: string[][] = [1, 2, 3, 4, 5].map((m) => [1, 2, 3, 4, 5].map((n) => pad(`Brand#${m}${n}`, 10)));

// ---------------------------------------------------------------- text

const VSTRING_ALPHABET = '0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ.,';

/** random v-string of length [min, max] (addresses): five 6-bit characters per draw */
function vstring(rng: Rng, min: number, max: number): string {
  const len = rng.int(min, max);
  let out = '';
  let bits = 0;
  let left = 0;
  for (let i = 0; i < len; i++) {
    if (left === 0) {
      bits = rng.next();
      left = 5;
    }
    out += VSTRING_ALPHABET[bits & 63];
    bits >>>= 6;
    left--;
  }
  return out;
}

/** Long enough that comments rarely repeat at SF 10; built once per seed (~60 ms). */
const POOL_SIZE = 4 * 1024 * 1024;
const pools = new Map<number, string>();

/** dbgen's text pool: sentences of its comment grammar, joined by single spaces. */
export function textPool(seed: number): string {
  let pool = pools.get(seed);
  if (pool === undefined) {
    pool = buildPool(seed);
    pools.set(seed, pool);
  }
  return pool;
}

function buildPool(seed: number): string {
  const rng = new Rng(seed, SALT.pool, 0);
  const lists = {
    N: new WeightedList(v.NOUNS),
    V: new WeightedList(v.VERBS),
    J: new WeightedList(v.ADJECTIVES),
    D: new WeightedList(v.ADVERBS),
    P: new WeightedList(v.PREPOSITIONS),
    X: new WeightedList(v.AUXILIARIES),
    T: new WeightedList(v.TERMINATORS),
  };
  const grammar = new WeightedList(v.GRAMMAR);
  const nounPhrases = new WeightedList(v.NOUN_PHRASES);
  const verbPhrases = new WeightedList(v.VERB_PHRASES);

  const words = (shape: string): string => {
    let out = '';
    for (const c of shape) {
      if (c === ',') out += ',';
      else out += (out === '' ? '' : ' ') + lists[c as keyof typeof lists].pick(rng);
    }
    return out;
  };
  const parts: string[] = [];
  let size = 0;
  while (size < POOL_SIZE + 200) {
    let sentence = '';
    for (const c of grammar.pick(rng)) {
      let phrase: string;
      if (c === 'N') phrase = words(nounPhrases.pick(rng));
      else if (c === 'V') phrase = words(verbPhrases.pick(rng));
      else if (c === 'P') phrase = `${lists.P.pick(rng)} the ${words(nounPhrases.pick(rng))}`;
      else {
        sentence += lists.T.pick(rng);
        continue;
      }
      sentence += (sentence === '' ? '' : ' ') + phrase;
    }
    parts.push(sentence);
    size += sentence.length + 1;
  }
  return parts.join(' ');
}

/** A comment: a random substring of the pool with length in [min, max] (dbgen's TEXT). */
function text(rng: Rng, pool: string, min: number, max: number): string {
  const len = rng.int(min, max);
  const offset = rng.int(0, pool.length - max - 1);
  return pool.substr(offset, len);
}

function phone(rng: Rng, nationkey: number): string {
  return `${nationkey + 10}-${rng.int(100, 999)}-${rng.int(100, 999)}-${rng.int(1000, 9999)}`;
}

// ---------------------------------------------------------------- keys

/**
 * dbgen's sparse order keys (mk_sparse): of every 32 keys only 8 are used, so that
 * refresh functions could insert between them: 1..7, 32..39, 64..71, … 6,000,000 at SF 1.
 */
export function orderKey(ordinal: number): number {
  const n = ordinal + 1;
  return Math.floor(n / 8) * 32 + (n % 8);
}

/** P_RETAILPRICE in hundredths: (90000 + ((partkey/10) mod 20001) + 100 * (partkey mod 1000)) / 100 */
export function retailPriceCents(partkey: number): number {
  return 90000 + (Math.floor(partkey / 10) % 20001) + 100 * (partkey % 1000);
}

/**
 * The four suppliers of a part: (partkey + i * (S/4 + (partkey-1)/S)) mod S + 1, i in 0..3.
 * For very small S (fewer than ~230 suppliers) the formula can repeat a supplier; the
 * next free supplier is taken instead so (ps_partkey, ps_suppkey) stays a key.
 */
export function partSuppliers(partkey: number, suppliers: number): [number, number, number, number] {
  const s = suppliers;
  const step = Math.floor(s / 4) + Math.floor((partkey - 1) / s);
  const out: number[] = [];
  for (let i = 0; i < 4; i++) {
    let key = ((partkey + i * step) % s) + 1;
    while (out.includes(key) && out.length < s) key = (key % s) + 1;
    out.push(key);
  }
  return out as [number, number, number, number];
}

// ---------------------------------------------------------------- scale

export interface Scale {
  readonly sf: number;
  readonly suppliers: number;
  readonly parts: number;
  readonly customers: number;
  readonly orders: number;
  readonly clerks: number;
}

export function scaleOf(sf: number): Scale {
  if (!(sf >= MIN_SF && sf <= MAX_SF))
    throw new RangeError(`scale factor must be in [${MIN_SF}, ${MAX_SF}], got ${sf}`);
  return {
    sf,
    suppliers: rowCount('supplier', sf),
    parts: rowCount('part', sf),
    customers: rowCount('customer', sf),
    orders: rowCount('orders', sf),
    clerks: Math.max(1, Math.floor(sf * 1000 + 1e-9)),
  };
}

/** Ordinals of the entity that drives a table's rows (see GenerateOptions.from). */
export function drivingCount(table: TableName, sf: number): number {
  const s = scaleOf(sf);
  switch (table) {
    case 'region':
      return 5;
    case 'nation':
      return 25;
    case 'supplier':
      return s.suppliers;
    case 'part':
    case 'partsupp':
      return s.parts;
    case 'customer':
      return s.customers;
    case 'orders':
    case 'lineitem':
      return s.orders;
  }
}

// ---------------------------------------------------------------- rows

type RowMaker = (ordinal: number, out: Row[]) => void;

function makers(scale: Scale, seed: number): Record<TableName, RowMaker> {
  const pool = textPool(seed);

  const order = (i: number, withLines: boolean, out: Row[]): void => {
    const rng = new Rng(seed, SALT.orders, i);
    const key = orderKey(i);
    let custkey: number;
    // customers whose key is a multiple of 3 place no orders (spec 4.2.3)
    do custkey = rng.int(1, scale.customers);
    while (custkey % 3 === 0 && scale.customers > 2);
    const orderDay = rng.int(START_DAY, LAST_ORDER_DAY);
    const priority = PRIORITY_TEXT[rng.int(0, 4)];
    const clerk = `Clerk#${digits9(rng.int(1, scale.clerks))}`;
    const comment = text(rng, pool, 19, 78);
    const lines = lineCount(seed, i);
    let total = 0;
    let open = 0;
    for (let n = 1; n <= lines; n++) {
      const partkey = rng.int(1, scale.parts);
      const suppkey = partSuppliers(partkey, scale.suppliers)[rng.int(0, 3)];
      const quantity = rng.int(1, 50);
      const discount = rng.int(0, 10);
      const tax = rng.int(0, 8);
      const instruct = INSTRUCTION_TEXT[rng.int(0, 3)];
      const mode = MODE_TEXT[rng.int(0, 6)];
      const lineComment = text(rng, pool, 10, 43);
      const shipDay = orderDay + rng.int(1, 121);
      const commitDay = orderDay + rng.int(30, 90);
      const receiptDay = shipDay + rng.int(1, 30);
      const returnflag = receiptDay <= CURRENT_DAY ? (rng.int(0, 1) === 0 ? 'R' : 'A') : 'N';
      const linestatus = shipDay > CURRENT_DAY ? 'O' : 'F';
      if (linestatus === 'O') open++;
      const extended = quantity * retailPriceCents(partkey);
      // dbgen's integer arithmetic: extended * (1 - discount) * (1 + tax), truncated per step
      total += Math.floor((Math.floor((extended * (100 - discount)) / 100) * (100 + tax)) / 100);
      if (withLines) {
        out.push([
          key,
          partkey,
          suppkey,
          n,
          QUANTITY_TEXT[quantity],
          cents(extended),
          CENTS_0_TO_100[discount],
          CENTS_0_TO_100[tax],
          returnflag,
          linestatus,
          DATE_TEXT[shipDay],
          DATE_TEXT[commitDay],
          DATE_TEXT[receiptDay],
          instruct,
          mode,
          lineComment,
        ]);
      }
    }
    if (!withLines) {
      const status = open === 0 ? 'F' : open === lines ? 'O' : 'P';
      out.push([key, custkey, status, cents(total), DATE_TEXT[orderDay], priority, clerk, 0, comment]);
    }
  };

  return {
    region: (i, out) => {
      const rng = new Rng(seed, SALT.region, i);
      out.push([i, REGION_TEXT[i], text(rng, pool, 31, 115)]);
    },
    nation: (i, out) => {
      const rng = new Rng(seed, SALT.nation, i);
      out.push([i, NATION_TEXT[i], v.NATIONS[i][1], text(rng, pool, 31, 114)]);
    },
    supplier: (i, out) => {
      const rng = new Rng(seed, SALT.supplier, i);
      const key = i + 1;
      const address = vstring(rng, 10, 40);
      const nation = rng.int(0, 24);
      const ph = phone(rng, nation);
      const acctbal = rng.int(-99999, 999999);
      let comment = text(rng, pool, 25, 100);
      // About 5 per 10,000 suppliers complain and 5 recommend (spec 4.2.3, used by Q16).
      const extra = new Rng(seed, SALT.complaints, i);
      const roll = extra.int(1, 10_000);
      if (roll <= 10) comment = embed(extra, comment, roll <= 5 ? 'Complaints' : 'Recommends');
      out.push([key, pad(`Supplier#${digits9(key)}`, 25), address, nation, ph, cents(acctbal), comment]);
    },
    part: (i, out) => {
      const rng = new Rng(seed, SALT.part, i);
      const key = i + 1;
      const picked: number[] = [];
      while (picked.length < 5) {
        const c = rng.int(0, v.COLORS.length - 1);
        if (!picked.includes(c)) picked.push(c);
      }
      const name = picked.map((c) => v.COLORS[c]).join(' ');
      const m = rng.int(1, 5);
      const n = rng.int(1, 5);
      const type = TYPE_TEXT[rng.int(0, TYPE_TEXT.length - 1)];
      const size = rng.int(1, 50);
      const container = CONTAINER_TEXT[rng.int(0, CONTAINER_TEXT.length - 1)];
      const comment = text(rng, pool, 5, 22);
      out.push([
        key,
        name,
        MFGR_TEXT[m - 1],
        BRAND_TEXT[m - 1][n - 1],
        type,
        size,
        container,
        cents(retailPriceCents(key)),
        comment,
      ]);
    },
    partsupp: (i, out) => {
      const rng = new Rng(seed, SALT.partsupp, i);
      const partkey = i + 1;
      const supps = partSuppliers(partkey, scale.suppliers);
      for (let k = 0; k < 4; k++) {
        const availqty = rng.int(1, 9999);
        const cost = rng.int(100, 100_000);
        out.push([partkey, supps[k], availqty, cents(cost), text(rng, pool, 49, 198)]);
      }
    },
    customer: (i, out) => {
      const rng = new Rng(seed, SALT.customer, i);
      const key = i + 1;
      const address = vstring(rng, 10, 40);
      const nation = rng.int(0, 24);
      const ph = phone(rng, nation);
      const acctbal = rng.int(-99999, 999999);
      const segment = SEGMENT_TEXT[rng.int(0, 4)];
      const comment = text(rng, pool, 29, 116);
      out.push([key, `Customer#${digits9(key)}`, address, nation, ph, cents(acctbal), segment, comment]);
    },
    orders: (i, out) => order(i, false, out),
    lineitem: (i, out) => order(i, true, out),
  };
}

/** Writes "Customer <...>Complaints" into a comment without changing its length. */
function embed(rng: Rng, comment: string, word: string): string {
  const head = 'Customer ';
  const need = head.length + word.length;
  if (comment.length < need) return comment;
  const a = rng.int(0, comment.length - need);
  const b = rng.int(a + head.length, comment.length - word.length);
  return comment.slice(0, a) + head + comment.slice(a + head.length, b) + word + comment.slice(b + word.length);
}

/**
 * Streams a table's rows in batches. Never holds more than one batch: callers may load
 * a table of any size.
 */
export function* generateTable(table: TableName, options: GenerateOptions): Generator<Row[], void, undefined> {
  const scale = scaleOf(options.sf);
  const seed = options.seed ?? DEFAULT_SEED;
  const batchSize = options.batchSize ?? 4096;
  const total = drivingCount(table, options.sf);
  const from = Math.max(0, options.from ?? 0);
  const to = Math.min(total, options.to ?? total);
  const make = makers(scale, seed)[table];
  let batch: Row[] = [];
  for (let i = from; i < to; i++) {
    make(i, batch);
    if (batch.length >= batchSize) {
      yield batch;
      batch = [];
    }
  }
  if (batch.length > 0) yield batch;
}

/** generateTable as an async stream (Connector.bulkLoad's input), yielding to the event loop between batches. */
export async function* generateTableAsync(
  table: TableName,
  options: GenerateOptions,
): AsyncGenerator<Row[], void, undefined> {
  for (const batch of generateTable(table, options)) {
    yield batch;
    await new Promise<void>((resolve) => setImmediate(resolve));
  }
}

/** Exact row counts without generating the values (lineitem needs its line counts). */
export function expectedRowCount(table: TableName, sf: number, seed = DEFAULT_SEED): number {
  if (table !== 'lineitem') return rowCount(table, sf);
  const orders = scaleOf(sf).orders;
  let rows = 0;
  for (let i = 0; i < orders; i++) rows += lineCount(seed, i);
  return rows;
}

/** An order's line count has its own stream so counting lines needs no other draw. */
function lineCount(seed: number, ordinal: number): number {
  return new Rng(seed, SALT.lines, ordinal).int(1, 7);
}
