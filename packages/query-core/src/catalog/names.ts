/**
 * SQL identifier matching: unquoted names match case-insensitively (the workload writes
 * `dbA` for a source registered as "dba" or "dbA"), quoted names match exactly.
 */
export interface NamePart {
  readonly name: string;
  readonly quoted: boolean;
}

export function unquoted(name: string): NamePart {
  return { name, quoted: false };
}

export function nameMatches(part: NamePart, candidate: string): boolean {
  return part.quoted ? part.name === candidate : part.name.toLowerCase() === candidate.toLowerCase();
}

/**
 * Picks the candidates a name part denotes. An unquoted name that matches several
 * candidates differing only in case prefers the exact spelling; otherwise all matches are
 * returned and the caller reports the ambiguity.
 */
export function pick<T>(part: NamePart, items: readonly T[], nameOf: (x: T) => string): T[] {
  const matches = items.filter((x) => nameMatches(part, nameOf(x)));
  if (matches.length <= 1 || part.quoted) return matches;
  const exact = matches.filter((x) => nameOf(x) === part.name);
  return exact.length === 1 ? exact : matches;
}

export function displayName(parts: readonly NamePart[]): string {
  return parts.map((p) => (p.quoted ? `"${p.name.replace(/"/g, '""')}"` : p.name)).join('.');
}

function levenshtein(a: string, b: string): number {
  const m = a.length;
  const n = b.length;
  let prev = Array.from({ length: n + 1 }, (_, j) => j);
  for (let i = 1; i <= m; i++) {
    const cur = [i];
    for (let j = 1; j <= n; j++) {
      cur[j] = Math.min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    prev = cur;
  }
  return prev[n];
}

/** The closest candidate (case-insensitively), if it is close enough to be a plausible typo. */
export function suggest(name: string, candidates: Iterable<string>): string | undefined {
  const target = name.toLowerCase();
  let best: string | undefined;
  let bestScore = Infinity;
  for (const c of candidates) {
    const lc = c.toLowerCase();
    const tail = lc.slice(lc.lastIndexOf('.') + 1);
    const d = Math.min(levenshtein(target, lc), target.includes('.') ? Infinity : levenshtein(target, tail));
    if (d < bestScore) {
      bestScore = d;
      best = c;
    }
  }
  if (best === undefined) return undefined;
  const limit = Math.max(1, Math.min(3, Math.floor(name.length / 3)));
  return bestScore <= limit ? best : undefined;
}
