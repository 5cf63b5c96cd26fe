import { useMemo, useState } from 'react';
import { dependentJoins, dependentWhatIf, layoutPlan, placeIndex, type DependentJoinInfo } from '../../lib/plan-graph.js';
import { formatParams, planNotes, type PlanNode, type StatementTiming } from '../../lib/plan.js';
import { placeClass, withDerivedEstimates, withPlaces } from '../../lib/query-plan.js';
import { formatMs, PlanGraph } from './PlanGraph.js';

/**
 * `text` is the server's own EXPLAIN text, the same the CLI and golden files print; `engine`:
 * where the query would run and why, when the server said (Trino configured, or a hint named one)
 */
export function PlanView({
  plan: sent,
  text,
  analyze,
  engine,
}: {
  plan: PlanNode;
  text: string;
  analyze: boolean;
  engine?: { readonly engine: string; readonly reason: string };
}) {
  const plan = useMemo(() => withDerivedEstimates(sent), [sent]);
  const layout = useMemo(() => layoutPlan(plan), [plan]);
  const places = useMemo(() => placeIndex(plan), [plan]);
  const joins = useMemo(() => (analyze ? [] : dependentJoins(plan)), [plan, analyze]);
  const [selected, setSelected] = useState<string>(layout.hot ?? '0');
  const node = layout.nodes.find((n) => n.id === selected)?.node ?? plan;
  const withSql = layout.nodes.filter((n) => n.node.sql !== undefined);
  // the text's "Engine: …" line is drawn above as a sentence of its own
  const notes = useMemo(
    () => planNotes(text, plan).filter((n) => !(engine && n.startsWith('Engine: '))),
    [text, plan, engine],
  );
  return (
    <div className="j-plan-view" data-testid="plan" aria-label={analyze ? 'Explain analyze plan' : 'Explain plan'} role="region">
      <div className="j-plan-bar">
        <button type="button" onClick={() => void navigator.clipboard?.writeText(text)}>
          Copy as text
        </button>
        <span className="j-legend" aria-label="Where steps run">
          {[...places].map(([place, i]) => (
            <span key={place} className={`j-legend-item j-place-${i % 6}`}>
              <span className="j-swatch" aria-hidden /> {place === 'junction' ? 'Junction' : place}
            </span>
          ))}
        </span>
        {layout.hot && (
          <span className="j-muted j-small">
            Slowest step: <strong>{layout.nodes.find((n) => n.id === layout.hot)?.node.operator}</strong>
          </span>
        )}
      </div>
      {engine && (
        <p className="j-plan-engine" data-testid="plan-engine">
          Runs on <strong>{engineName(engine.engine)}</strong> <span className="j-muted">· {engine.reason}</span>
        </p>
      )}
      <PlanNotes notes={notes} />
      <PlanGraph layout={layout} places={places} selected={selected} onSelect={setSelected} />
      <NodeDetail node={node} />
      {plan.timeline && plan.timeline.length > 0 && <Timeline statements={plan.timeline} places={places} />}
      {joins.length > 0 && <WhatIf joins={joins} />}
      <section className="j-plan-section" aria-label="SQL sent to each source">
        <h3>SQL sent to the sources</h3>
        {withSql.length === 0 && <p className="j-muted j-small">Nothing runs in a source: Junction answers from constants.</p>}
        {withSql.map((p) => (
          <div key={p.id}>
            <SourceSql node={p.node} />
            {p.node.remotePlan !== undefined && <RemotePlan node={p.node} testId={`plan-remote-${p.node.runsIn}`} />}
          </div>
        ))}
      </section>
    </div>
  );
}

/** What the tree leaves out: stored rows of a materialized view, results or fragments from cache. */
export function PlanNotes({ notes }: { notes: readonly string[] }) {
  if (notes.length === 0) return null;
  return (
    <ul className="j-plan-notes" aria-label="Where rows come from" data-testid="plan-notes">
      {notes.map((n, i) => (
        <li key={i}>{n}</li>
      ))}
    </ul>
  );
}

function NodeDetail({ node }: { node: PlanNode }) {
  return (
    <section className="j-plan-section j-plan-detail-box" aria-label="Selected step" data-testid="plan-detail">
      <h3>
        {node.operator} <span className="j-badge">{node.runsIn}</span>
      </h3>
      {node.detail && <p className="j-plan-detail">{node.detail}</p>}
      <p className="j-small">
        {[
          node.estimatedRows !== undefined && `estimated ${node.estimatedRows.toLocaleString('en-US')} rows`,
          node.actual &&
            `actual ${node.actual.rows.toLocaleString('en-US')} rows in ${node.actual.batches} batches · ${formatMs(node.actual.timeMs)}${
              node.actual.statements ? ` · ${node.actual.statements} statements` : ''
            }`,
        ]
          .filter(Boolean)
          .join(' · ')}
      </p>
      {(node.notPushed ?? []).length > 0 && (
        <ul className="j-not-pushed">
          {(node.notPushed ?? []).map((n, i) => (
            <li key={i}>
              not pushed — {n.what}: {n.reason}
            </li>
          ))}
        </ul>
      )}
      {node.sql !== undefined && <SourceSql node={node} testId="plan-detail-sql" />}
      {node.remotePlan !== undefined && <RemotePlan node={node} open testId="plan-detail-remote" />}
    </section>
  );
}

const engineName = (e: string): string => (e === 'local' ? 'Junction' : e === 'trino' ? 'Trino' : e);

/**
 * The engine's own plan of the statement sent to it (Trino's fragments and exchanges), as it
 * printed it: long, so folded unless it is the selected step's.
 */
function RemotePlan({ node, open, testId }: { node: PlanNode; open?: boolean; testId: string }) {
  return (
    <details className="j-remote-plan" open={open} data-testid={testId}>
      <summary>{engineName(node.runsIn)}&apos;s distributed plan of this statement</summary>
      <pre className="j-plan-sql j-remote-plan-text">{node.remotePlan}</pre>
    </details>
  );
}

/** The statement exactly as sent (complete, even when the plan text summarises a long IN list). */
function SourceSql({ node, testId }: { node: PlanNode; testId?: string }) {
  const [copied, setCopied] = useState(false);
  const sql = node.fullSql ?? node.sql ?? '';
  const params = node.fullParams ?? node.params;
  return (
    <div className="j-source-sql">
      <div className="j-row">
        <span className="j-badge j-source">{node.runsIn}</span>
        <span className="j-muted j-small">{node.operator}</span>
        <span className="j-spacer" />
        <button
          type="button"
          className="j-link"
          aria-label={`Copy the SQL sent to ${node.runsIn}`}
          onClick={() => void navigator.clipboard?.writeText(sql).then(() => setCopied(true))}
        >
          {copied ? 'Copied' : 'Copy SQL'}
        </button>
      </div>
      <pre className="j-plan-sql" data-testid={testId ?? `plan-sql-${node.runsIn}`}>
        {sql}
      </pre>
      {params && params.length > 0 && <div className="j-plan-params">params: {formatParams(params)}</div>}
    </div>
  );
}

function Timeline({ statements, places: legend }: { statements: readonly StatementTiming[]; places: ReadonlyMap<string, number> }) {
  const end = Math.max(1, ...statements.map((s) => s.endMs));
  // each source's bars in its colour from the plan's legend: which statement went where at a glance
  const places = withPlaces(
    legend,
    statements.map((s) => s.source),
  );
  return (
    <section className="j-plan-section" aria-label="Timeline of source statements" data-testid="plan-timeline">
      <h3>Timeline of the statements sent ({formatMs(end)})</h3>
      <ol className="j-timeline">
        {statements.map((s, i) => (
          <li key={i} title={s.sql} className={placeClass(places, s.source)}>
            <span className="j-tl-label">
              <span className="j-badge j-source">{s.source}</span> #{i + 1}
            </span>
            <span className="j-tl-track">
              <span
                data-testid={`plan-timeline-bar-${i}`}
                className={`j-tl-bar${s.stoppedEarly ? ' j-tl-stopped' : ''}`}
                style={{ left: `${(100 * s.startMs) / end}%`, width: `${Math.max(0.5, (100 * (s.endMs - s.startMs)) / end)}%` }}
              />
            </span>
            <span className="j-tl-info j-small">
              {formatMs(s.startMs)} → {formatMs(s.endMs)} · {s.rows.toLocaleString('en-US')} rows
              {s.stoppedEarly ? ' · stopped early' : ''}
            </span>
          </li>
        ))}
      </ol>
    </section>
  );
}

function WhatIf({ joins }: { joins: readonly DependentJoinInfo[] }) {
  return (
    <section className="j-plan-section" aria-label="Dependent joins: what if" data-testid="plan-whatif">
      <h3>Dependent joins, before running</h3>
      <p className="j-muted j-small">
        Each batch of driver keys becomes one statement with an IN list. Change the number of keys to see what would be sent.
      </p>
      {joins.map((j) => (
        <WhatIfRow key={j.id} join={j} />
      ))}
    </section>
  );
}

function WhatIfRow({ join }: { join: DependentJoinInfo }) {
  const [keys, setKeys] = useState(String(Math.round(join.estimatedKeys ?? join.maxInList)));
  const n = Number(keys);
  const w = Number.isFinite(n) && n >= 0 ? dependentWhatIf(join, n) : undefined;
  return (
    <div className="j-row j-whatif">
      <label>
        Keys from the driver side{' '}
        <input type="number" min={0} value={keys} onChange={(e) => setKeys(e.target.value)} aria-label={`Driver keys for the join into ${join.drivenSource}`} />
      </label>
      {w && (
        <span data-testid="whatif-result">
          → {w.statements.toLocaleString('en-US')} {w.statements === 1 ? 'statement' : 'statements'} to {join.drivenSource}, up to{' '}
          {w.keysPerStatement.toLocaleString('en-US')} keys each (batches of {join.maxInList.toLocaleString('en-US')}), ≈
          {w.statementChars.toLocaleString('en-US')} characters per statement
        </span>
      )}
    </div>
  );
}
