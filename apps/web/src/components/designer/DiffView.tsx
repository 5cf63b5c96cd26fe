import { diffLines } from '../../lib/view-graph/line-diff.js';

/** Two texts line by line: removed lines red with −, added ones green with +. */
export function DiffView({ before, after, testId }: { before: string; after: string; testId: string }) {
  const lines = diffLines(before, after);
  const changed = lines.some((l) => l.op !== 'same');
  return (
    <pre className="j-diff" data-testid={testId}>
      {!changed && <span className="j-muted">(no change)</span>}
      {changed &&
        lines.map((l, i) => (
          <div key={i} className={`j-diff-${l.op}`}>
            {l.op === 'add' ? '+ ' : l.op === 'del' ? '− ' : '  '}
            {l.text}
          </div>
        ))}
    </pre>
  );
}
