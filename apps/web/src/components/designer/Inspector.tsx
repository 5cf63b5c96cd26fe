import * as edit from '../../lib/view-graph/edit.js';
import { graphJoinWarnings, type StringSemantics } from '../../lib/view-graph/join-warnings.js';
import { unjoinedTables, type ViewGraph } from '../../lib/view-graph/model.js';
import type { JoinSuggestion } from '../../lib/view-graph/suggest-joins.js';
import { FiltersPanel } from './FiltersPanel.js';
import { JoinsPanel } from './JoinsPanel.js';
import { OptionsPanel } from './OptionsPanel.js';
import { OutputsPanel } from './OutputsPanel.js';

interface Props {
  graph: ViewGraph;
  apply(f: (g: ViewGraph) => ViewGraph): void;
  suggestions: readonly JoinSuggestion[];
  semantics: ReadonlyMap<string, StringSemantics | undefined>;
  selectedJoin?: string;
  /** applies the graph once the server accepts its SQL; resolves to the server's refusal */
  checked(next: ViewGraph): Promise<string | undefined>;
}

/** The view's definition beside the canvas: joins, columns, filters, row options. */
export function Inspector({ graph, apply, suggestions, semantics, selectedJoin, checked }: Props) {
  return (
    <aside className="j-inspector" aria-label="View definition">
      <JoinsPanel
        joins={graph.joins}
        suggestions={suggestions}
        warnings={graphJoinWarnings(graph, semantics)}
        selected={selectedJoin}
        unjoined={unjoinedTables(graph)}
        onType={(id, type) => apply((g) => edit.setJoinType(g, id, type))}
        onRemove={(id) => apply((g) => edit.removeJoin(g, id))}
        onAccept={(s) => apply((g) => edit.addJoin(g, s.join.left, s.join.right, s.join.type))}
      />
      <OutputsPanel
        outputs={graph.outputs}
        onRename={(i, n) => apply((g) => edit.renameOutput(g, i, n))}
        onMove={(i, d) => apply((g) => edit.moveOutput(g, i, d))}
        onRemove={(i) => apply((g) => edit.removeOutput(g, i))}
        onAggregate={(i, a) => apply((g) => edit.setAggregate(g, i, a))}
        onAddComputed={(expr, name) => checked(edit.addComputed(graph, expr, name))}
      />
      <FiltersPanel
        graph={graph}
        onRemove={(i) => apply((g) => edit.removeFilter(g, i))}
        onAdd={(p) => checked(edit.addFilter(graph, p))}
      />
      <OptionsPanel
        graph={graph}
        onDistinct={(d) => apply((g) => edit.setDistinct(g, d))}
        onSort={(e, desc) => apply((g) => edit.setSort(g, e, desc))}
        onLimit={(n) => apply((g) => edit.setLimit(g, n))}
      />
    </aside>
  );
}
