import type { KeyboardEvent } from 'react';
import { NODE_H, NODE_W, type PlanLayout } from '../../lib/plan-graph.js';

const PAD = 12;

/** The plan as a drawn tree: boxes coloured by where each step runs, edges to their inputs. */
export function PlanGraph({
  layout,
  places,
  selected,
  onSelect,
}: {
  layout: PlanLayout;
  places: ReadonlyMap<string, number>;
  selected?: string;
  onSelect(id: string): void;
}) {
  const byId = new Map(layout.nodes.map((n) => [n.id, n]));
  const maxSelf = Math.max(0, ...layout.nodes.map((n) => n.selfMs ?? 0));
  const key = (e: KeyboardEvent, id: string) => {
    if (e.key === 'Enter' || e.key === ' ') {
      e.preventDefault();
      onSelect(id);
    }
  };
  return (
    <div className="j-plan-graph-scroll">
      <svg
        className="j-plan-graph"
        width={layout.width + 2 * PAD}
        height={layout.height + 2 * PAD}
        role="group"
        aria-label="Plan tree"
        data-testid="plan-graph"
      >
        <g transform={`translate(${PAD},${PAD})`}>
          {layout.edges.map((e) => {
            const a = byId.get(e.from)!;
            const b = byId.get(e.to)!;
            const x1 = a.x + NODE_W / 2;
            const y1 = a.y + NODE_H;
            const x2 = b.x + NODE_W / 2;
            const y2 = b.y;
            const my = (y1 + y2) / 2;
            return <path key={`${e.from}-${e.to}`} className="j-plan-edge" d={`M${x1},${y1} C${x1},${my} ${x2},${my} ${x2},${y2}`} />;
          })}
          {layout.nodes.map((p) => {
            const n = p.node;
            const hot = layout.hot === p.id;
            // an unknown estimate is left out: "est ?" only says that nothing is known
            const est = n.estimatedRows === undefined ? undefined : `est ${n.estimatedRows.toLocaleString('en-US')}`;
            const rows =
              n.actual !== undefined
                ? [est, `actual ${n.actual.rows.toLocaleString('en-US')}`].filter(Boolean).join(' · ')
                : est === undefined
                  ? ''
                  : `${est} rows`;
            const bar = p.selfMs !== undefined && maxSelf > 0 ? Math.max(2, ((NODE_W - 20) * p.selfMs) / maxSelf) : 0;
            return (
              <g
                key={p.id}
                transform={`translate(${p.x},${p.y})`}
                className={`j-plan-box j-place-${(places.get(n.runsIn) ?? 0) % 6}${hot ? ' j-hot' : ''}${selected === p.id ? ' j-selected' : ''}`}
                role="button"
                tabIndex={0}
                aria-pressed={selected === p.id}
                aria-label={`${n.operator} in ${n.runsIn}${hot ? ', the slowest step' : ''}`}
                data-testid={`plan-node-${p.id}`}
                data-runs-in={n.runsIn}
                onClick={() => onSelect(p.id)}
                onKeyDown={(e) => key(e, p.id)}
              >
                <title>{n.detail ? `${n.operator} ${n.detail}` : n.operator}</title>
                <rect width={NODE_W} height={NODE_H} rx={6} />
                <text x={10} y={19} className="j-plan-op-text">
                  {n.operator.length > 22 ? `${n.operator.slice(0, 21)}…` : n.operator}
                </text>
                <text x={NODE_W - 10} y={19} textAnchor="end" className="j-plan-where">
                  {n.runsIn}
                </text>
                <text x={10} y={39} className="j-plan-rows">
                  {rows}
                </text>
                {p.selfMs !== undefined && (
                  <>
                    <rect x={10} y={50} width={NODE_W - 20} height={8} rx={2} className="j-plan-bar-bg" />
                    <rect x={10} y={50} width={bar} height={8} rx={2} className="j-plan-bar" />
                    <text x={NODE_W - 10} y={70} textAnchor="end" className="j-plan-time">
                      {hot ? 'hot · ' : ''}
                      {formatMs(p.selfMs)} own · {formatMs(n.actual?.timeMs ?? 0)} total
                    </text>
                  </>
                )}
              </g>
            );
          })}
        </g>
      </svg>
    </div>
  );
}

export function formatMs(ms: number): string {
  return ms < 10 ? `${ms.toFixed(2)} ms` : `${Math.round(ms).toLocaleString('en-US')} ms`;
}
