/**
 * The common case of decimal arithmetic without BigInt: a value whose unscaled digits fit in
 * 15 digits is an exact JS integer, and sums/products that stay below 2^53 are exact too.
 * Every function here reports when it cannot answer exactly, and callers fall back to the
 * BigInt path in decimal.ts, so results are identical either way.
 */

/** Result registers of `parseSmall` (no allocation per value in hot loops). */
export const reg = { v: 0, s: 0 };

const POW: number[] = [1, 10, 100, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15];

/**
 * Parses plain decimal text ("-12.50") into reg.v (unscaled integer) and reg.s (scale).
 * Returns false for anything longer than 15 digits or not in plain form (exponents, spaces).
 */
export function parseSmall(text: string): boolean {
  const n = text.length;
  let i = 0;
  let neg = false;
  const c0 = text.charCodeAt(0);
  if (c0 === 45 /* - */) {
    neg = true;
    i = 1;
  } else if (c0 === 43 /* + */) i = 1;
  let v = 0;
  let digits = 0;
  let scale = -1;
  for (; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c >= 48 && c <= 57) {
      v = v * 10 + (c - 48);
      if (v !== 0) digits++;
      if (scale >= 0) scale++;
    } else if (c === 46 /* . */ && scale < 0) scale = 0;
    else return false;
  }
  if (digits > 15 || (scale < 0 && i === (neg ? 1 : 0))) return false;
  reg.v = neg ? -v : v;
  reg.s = scale < 0 ? 0 : scale;
  return reg.s <= 15;
}

/** Formats an unscaled integer at `scale` as plain decimal text. */
export function formatSmall(v: number, scale: number): string {
  if (scale === 0) return v === 0 ? '0' : String(v);
  const neg = v < 0;
  let digits = String(neg ? -v : v);
  if (digits.length <= scale) digits = '0'.repeat(scale - digits.length + 1) + digits;
  const text = digits.slice(0, digits.length - scale) + '.' + digits.slice(digits.length - scale);
  return neg ? '-' + text : text;
}

/** v * 10^k, or NaN when the result is not an exact integer. */
export function scaleUp(v: number, k: number): number {
  if (k === 0) return v;
  if (k >= POW.length) return NaN;
  const r = v * POW[k];
  return Number.isSafeInteger(r) ? r : NaN;
}
