import { Rng } from '@junction/tpch';
import * as v from './vocabulary.js';

/**
 * A TPoX-like generator (the Transaction Processing over XML benchmark's three collections):
 * customer accounts with their holdings, FIXML orders on those accounts, and the securities the
 * holdings and orders name. Customer ids are TPC-H's c_custkey (1 … 150,000 × SF), so the
 * documents join with a TPC-H customer table loaded at the same scale factor; each customer
 * places three orders on average and the securities are a fixed list, as in TPoX.
 *
 * Deterministic: a document depends only on (seed, collection, ordinal). Decimals are exact
 * text ("-12.05"), dates 'YYYY-MM-DD', as Junction's value model holds them.
 */
export const DEFAULT_SEED = 20030101;
export const MIN_SF = 0.001;
export const MAX_SF = 10;
/** orders per customer */
export const ORDERS_PER_CUSTOMER = 3;
/** TPoX's security list does not grow with the scale either */
export const SECURITY_COUNT = 500;
/** account ids are customer id × 10 + 1…4: unique, and readable back to their customer */
export const MAX_ACCOUNTS_PER_CUSTOMER = 4;
export const MAX_POSITIONS_PER_ACCOUNT = 8;
export const FIXML_NS = 'http://www.fixprotocol.org/FIXML-4-4';

const SALT = { customer: 1, accounts: 2, order: 3, security: 4, price: 5 } as const;

export interface Scale {
  readonly sf: number;
  readonly customers: number;
  readonly orders: number;
  readonly securities: number;
}

export function scaleOf(sf: number): Scale {
  if (!(sf >= MIN_SF && sf <= MAX_SF))
    throw new RangeError(`tpox: scale factor must be in [${MIN_SF}, ${MAX_SF}], got ${sf}`);
  // TPC-H's own rounding (dbgen's customer count), so the ids line up with c_custkey exactly
  const customers = Math.max(1, Math.floor(150_000 * sf + 1e-9));
  return { sf, customers, orders: customers * ORDERS_PER_CUSTOMER, securities: SECURITY_COUNT };
}

export interface Position {
  readonly symbol: string;
  readonly name: string;
  readonly type: string;
  readonly qty: number;
}

export interface Account {
  readonly id: number;
  readonly category: string;
  readonly title: string;
  readonly currency: string;
  readonly openingDate: string;
  /** decimal(15,2) text; negative for an overdrawn account */
  readonly balance: string;
  readonly positions: readonly Position[];
}

export interface Customer {
  readonly id: number;
  readonly firstName: string;
  readonly lastName: string;
  readonly dateOfBirth: string;
  readonly gender: 'Male' | 'Female';
  readonly nationality: string;
  readonly countryOfResidence: string;
  readonly premium: boolean;
  readonly accounts: readonly Account[];
}

export interface Order {
  readonly id: number;
  readonly accountId: number;
  readonly side: 1 | 2;
  readonly tradeDate: string;
  /** decimal(10,2) text */
  readonly price: string;
  readonly symbol: string;
  readonly quantity: number;
}

export interface Security {
  readonly symbol: string;
  readonly name: string;
  readonly type: 'Stock' | 'Fund';
  /** stocks only; funds have a fund family instead */
  readonly sector?: string;
  readonly industry?: string;
  readonly fundFamily?: string;
  /** decimal(10,2) text */
  readonly lastTrade: string;
}

// ---------------------------------------------------------------- values

/** integer hundredths to exact decimal text: -1 → "-0.01" */
export function cents(value: number): string {
  const neg = value < 0;
  const a = neg ? -value : value;
  const frac = a % 100;
  return (neg ? '-' : '') + Math.floor(a / 100) + (frac < 10 ? '.0' : '.') + frac;
}

const DAY_MS = 86_400_000;

function dayText(epochDay: number): string {
  return new Date(epochDay * DAY_MS).toISOString().slice(0, 10);
}

const DAY_1940 = Date.UTC(1940, 0, 1) / DAY_MS;
const DAY_1990 = Date.UTC(1990, 0, 1) / DAY_MS;
const DAY_2004_END = Date.UTC(2004, 11, 31) / DAY_MS;

/** the trading days of 2005 (weekdays): orders are dated on them and the price history covers them */
export const TRADING_DAYS: readonly string[] = (() => {
  const out: string[] = [];
  for (let d = Date.UTC(2005, 0, 1) / DAY_MS; d <= Date.UTC(2005, 11, 31) / DAY_MS; d++) {
    const wd = new Date(d * DAY_MS).getUTCDay();
    if (wd !== 0 && wd !== 6) out.push(dayText(d));
  }
  return out;
})();

const LETTERS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';

/** 1 → a three-letter ticker; a bijection on [0, 26³), so tickers never repeat */
export function symbolOf(ordinal: number): string {
  let n = ((ordinal - 1) * 7919 + 4321) % 17_576;
  let s = '';
  for (let i = 0; i < 3; i++) {
    s = LETTERS[n % 26] + s;
    n = Math.floor(n / 26);
  }
  return s;
}

// ---------------------------------------------------------------- securities

const securityCache = new Map<number, readonly Security[]>();

/** All securities of a seed, ordinal 1 first (500 of them: built once and kept). */
export function securities(seed = DEFAULT_SEED): readonly Security[] {
  let list = securityCache.get(seed);
  if (!list) {
    list = Array.from({ length: SECURITY_COUNT }, (_, i) => security(seed, i + 1));
    securityCache.set(seed, list);
  }
  return list;
}

function security(seed: number, ordinal: number): Security {
  const rng = new Rng(seed, SALT.security, ordinal);
  const symbol = symbolOf(ordinal);
  const name = `${rng.pick(v.COMPANY_WORDS)} ${rng.pick(v.COMPANY_WORDS)} ${rng.pick(v.COMPANY_SUFFIXES)}`;
  const lastTrade = cents(rng.int(100, 50_000));
  if (rng.int(1, 5) === 1)
    return { symbol, name: `${name} Fund`, type: 'Fund', fundFamily: rng.pick(v.FUND_FAMILIES), lastTrade };
  const [sector, industries] = rng.pick(v.SECTORS);
  return { symbol, name, type: 'Stock', sector, industry: rng.pick(industries), lastTrade };
}

// ---------------------------------------------------------------- customers

/** How many accounts a customer has (1–4): a stream of its own, so orders find their accounts cheaply. */
export function accountCount(seed: number, customerId: number): number {
  const r = new Rng(seed, SALT.accounts, customerId).int(1, 100);
  return r <= 30 ? 1 : r <= 65 ? 2 : r <= 85 ? 3 : 4;
}

export function customer(seed: number, id: number): Customer {
  const rng = new Rng(seed, SALT.customer, id);
  const secs = securities(seed);
  const nationality = rng.pick(v.COUNTRIES);
  const c = {
    id,
    firstName: rng.pick(v.FIRST_NAMES),
    lastName: rng.pick(v.LAST_NAMES),
    dateOfBirth: dayText(rng.int(DAY_1940, DAY_1990)),
    gender: rng.int(0, 1) ? 'Male' : 'Female',
    nationality,
    // most live where they are from
    countryOfResidence: rng.int(1, 4) === 1 ? rng.pick(v.COUNTRIES) : nationality,
    premium: rng.int(1, 5) === 1,
  } as const;
  const accounts: Account[] = [];
  const n = accountCount(seed, id);
  for (let k = 1; k <= n; k++) {
    const held = new Set<number>();
    const positions: Position[] = [];
    const count = rng.int(0, MAX_POSITIONS_PER_ACCOUNT);
    while (positions.length < count) {
      const s = rng.int(0, secs.length - 1);
      if (held.has(s)) continue;
      held.add(s);
      positions.push({ symbol: secs[s].symbol, name: secs[s].name, type: secs[s].type, qty: rng.int(1, 200) * 5 });
    }
    const category = rng.pick(v.ACCOUNT_CATEGORIES);
    accounts.push({
      id: id * 10 + k,
      category,
      title: `${rng.pick(v.TITLE_WORDS)} ${category} ${c.lastName}`,
      currency: rng.pick(v.CURRENCIES),
      openingDate: dayText(rng.int(DAY_1990, DAY_2004_END)),
      balance: cents(rng.int(-250_000, 10_000_000)),
      positions,
    });
  }
  return { ...c, accounts };
}

// ---------------------------------------------------------------- orders

export function order(seed: number, scale: Scale, id: number): Order {
  const rng = new Rng(seed, SALT.order, id);
  const customerId = rng.int(1, scale.customers);
  const sec = securities(seed)[rng.int(0, SECURITY_COUNT - 1)];
  const last = Math.round(Number(sec.lastTrade) * 100);
  return {
    id,
    accountId: customerId * 10 + rng.int(1, accountCount(seed, customerId)),
    side: rng.int(0, 1) ? 1 : 2,
    tradeDate: rng.pick(TRADING_DAYS),
    // within 10% of the last trade, at least a cent
    price: cents(Math.max(1, last + rng.int(-Math.floor(last / 10), Math.floor(last / 10)))),
    symbol: sec.symbol,
    quantity: rng.int(1, 100) * 10,
  };
}

// ---------------------------------------------------------------- price history

export interface DailyPrice {
  readonly symbol: string;
  readonly day: string;
  /** decimal(10,2) text */
  readonly close: string;
  readonly volume: number;
}

/** One security's closes on every trading day of 2005: a random walk that ends at its last trade. */
export function priceHistory(seed: number, ordinal: number): DailyPrice[] {
  const sec = securities(seed)[ordinal - 1];
  const rng = new Rng(seed, SALT.price, ordinal);
  let price = Math.round(Number(sec.lastTrade) * 100);
  const out: DailyPrice[] = new Array(TRADING_DAYS.length);
  // walked backwards from the last trade, so the newest close is the security's LastTrade
  for (let i = TRADING_DAYS.length - 1; i >= 0; i--) {
    out[i] = { symbol: sec.symbol, day: TRADING_DAYS[i], close: cents(price), volume: rng.int(1, 5000) * 100 };
    price = Math.max(1, price + rng.int(-Math.ceil(price / 50), Math.ceil(price / 50)));
  }
  return out;
}

// ---------------------------------------------------------------- iteration

/** ordinals [from, to], 1-based and inclusive */
export function* customers(seed: number, scale: Scale, from = 1, to = scale.customers): Generator<Customer> {
  for (let i = from; i <= to; i++) yield customer(seed, i);
}

export function* orders(seed: number, scale: Scale, from = 1, to = scale.orders): Generator<Order> {
  for (let i = from; i <= to; i++) yield order(seed, scale, i);
}
