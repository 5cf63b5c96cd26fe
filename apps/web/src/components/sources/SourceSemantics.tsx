import type { SourceSemantics as Semantics } from '../../lib/api.js';

const yesNo = (v: boolean | undefined, yes: string, no: string) => (v === undefined ? 'unknown' : v ? yes : no);

/**
 * What the probe found about how the source compares and stores values: these decide which
 * filters Junction can push down to it without changing the answer.
 */
export function SourceSemantics({ semantics }: { semantics: Semantics | null | undefined }) {
  if (!semantics) return null;
  const rows: [string, string][] = [
    ['Server', semantics.serverVersion ?? 'unknown'],
    ['Collation', semantics.defaultCollation ?? 'unknown'],
    ['Text comparison', yesNo(semantics.caseSensitive, 'case-sensitive', 'case-insensitive')],
    ['Accents', yesNo(semantics.accentSensitive, 'accent-sensitive', 'accent-insensitive')],
    ['Trailing spaces', yesNo(semantics.padSpace, "ignored ('a' = 'a ')", "significant ('a' ≠ 'a ')")],
    ['Time zone', semantics.timeZone ?? 'unknown'],
    ['Parameters per query', semantics.maxBindParams?.toLocaleString('en-US') ?? 'unknown'],
  ];
  return (
    <details className="j-semantics">
      <summary className="j-small">Probe findings</summary>
      <dl>
        {rows.map(([k, v]) => (
          <div key={k}>
            <dt>{k}</dt>
            <dd>{v}</dd>
          </div>
        ))}
      </dl>
    </details>
  );
}
