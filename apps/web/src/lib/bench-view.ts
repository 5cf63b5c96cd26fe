/** #/benchmarks, #/benchmarks/run/<id>, #/benchmarks/compare/<a>/<b>: a reload keeps the view. */
export function parseBenchHash(hash: string): { run?: string; compare?: [string, string] } {
  const parts = hash
    .replace(/^#\/benchmarks\/?/, '')
    .split('/')
    .filter(Boolean)
    .map(decodeURIComponent);
  if (parts[0] === 'run' && parts[1]) return { run: parts[1] };
  if (parts[0] === 'compare' && parts[1] && parts[2]) return { compare: [parts[1], parts[2]] };
  return {};
}

/** An error of the Benchmarks page, with the view (hash) it happened in. */
export interface ViewError {
  readonly hash: string;
  readonly message: string;
}

/** The error to show in view `hash`: one from another view (a failed import, then a click on a run) is stale. */
export function errorFor(e: ViewError | undefined, hash: string): string | undefined {
  return e && e.hash === hash ? e.message : undefined;
}
