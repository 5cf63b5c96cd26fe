import { useEffect, useRef, useState, type DragEvent } from 'react';
import {
  Background,
  ConnectionMode,
  Controls,
  MiniMap,
  ReactFlow,
  useReactFlow,
  type Edge,
  type NodeChange,
  type EdgeChange,
  type Connection,
} from '@xyflow/react';
import '@xyflow/react/dist/style.css';
import { boundsOf, estimatedNodeSize, minimapFitPadding } from '../../lib/designer-fit.js';
import { useTheme } from '../../lib/theme.js';
import { isColumnPicked } from '../../lib/view-graph/edit.js';
import { joinId, type ColumnRef, type JoinType, type ViewGraph } from '../../lib/view-graph/model.js';
import type { JoinSuggestion } from '../../lib/view-graph/suggest-joins.js';
import { TableNodeView, type TableFlowNode } from './TableNodeView.js';

// at module scope: React Flow re-creates every node when this object changes
const nodeTypes = { table: TableNodeView };

export const DRAG_TYPE = 'application/x-junction-table';

const LABEL: Record<JoinType, string> = { inner: 'INNER', left: 'LEFT', right: 'RIGHT', full: 'FULL' };

interface Props {
  graph: ViewGraph;
  suggestions: readonly JoinSuggestion[];
  selectedJoin?: string;
  onDropTable(payload: string, at: { x: number; y: number }): void;
  onMove(alias: string, at: { x: number; y: number }): void;
  onConnect(left: ColumnRef, right: ColumnRef): void;
  onSelectJoin(id: string | undefined): void;
  onRemoveTables(aliases: string[]): void;
  onRemoveJoins(ids: string[]): void;
}

/** The canvas: tables as nodes, joins as edges between columns, suggestions dashed. */
export function Canvas(p: Props) {
  const flow = useReactFlow();
  const { dark } = useTheme();
  const box = useRef<HTMLDivElement>(null);
  // positions while a node is dragged; the graph gets the place when the drag ends (one undo step)
  const [dragging, setDragging] = useState<Record<string, { x: number; y: number }>>({});
  const [selected, setSelected] = useState<ReadonlySet<string>>(new Set());
  // measured sizes go back into the nodes: the minimap and fit-to-screen need them
  const [sizes, setSizes] = useState<Record<string, { width: number; height: number }>>({});
  // fit-to-screen leaves the minimap's corner free (measured sizes once React Flow has them)
  const fitOptions = () => {
    const bounds = boundsOf(
      p.graph.tables.map((t) => ({ ...t.position, ...(sizes[t.alias] ?? estimatedNodeSize(t.columns.length)) })),
    );
    const el = box.current;
    if (!bounds || !el) return { maxZoom: 1, padding: 0.12 };
    return { maxZoom: 1, padding: minimapFitPadding({ width: el.clientWidth, height: el.clientHeight }, bounds) };
  };
  // a table added (or a view or draft opened) brings every table into view
  const count = p.graph.tables.length;
  const seen = useRef(0);
  useEffect(() => {
    if (count > seen.current) requestAnimationFrame(() => void flow.fitView({ ...fitOptions(), duration: 150 }));
    seen.current = count;
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [count, flow]);

  const nodes: TableFlowNode[] = p.graph.tables.map((t) => ({
    id: t.alias,
    type: 'table',
    position: dragging[t.alias] ?? t.position,
    selected: selected.has(t.alias),
    ...(sizes[t.alias] ? { measured: sizes[t.alias] } : {}),
    data: {
      table: t,
      picked: t.columns.filter((c) => isColumnPicked(p.graph, { table: t.alias, column: c.name })).map((c) => c.name),
    },
  }));
  const edges: Edge[] = [
    ...p.graph.joins.map((j) => ({
      id: joinId(j),
      source: j.left.table,
      sourceHandle: j.left.column,
      target: j.right.table,
      targetHandle: j.right.column,
      label: LABEL[j.type],
      selected: p.selectedJoin === joinId(j),
      className: `j-join-edge j-join-${j.type}`,
    })),
    ...p.suggestions.map((s) => ({
      id: `suggest:${joinId(s.join)}`,
      source: s.join.left.table,
      sourceHandle: s.join.left.column,
      target: s.join.right.table,
      targetHandle: s.join.right.column,
      label: 'suggested',
      selectable: false,
      deletable: false,
      animated: true,
      className: 'j-suggest-edge',
    })),
  ];

  function onNodesChange(changes: NodeChange<TableFlowNode>[]) {
    for (const c of changes) {
      if (c.type === 'position' && c.position) {
        const at = c.position;
        if (c.dragging) setDragging((d) => ({ ...d, [c.id]: at }));
        else {
          p.onMove(c.id, at);
          setDragging(({ [c.id]: _done, ...rest }) => rest);
        }
      } else if (c.type === 'position' && !c.dragging && dragging[c.id]) {
        p.onMove(c.id, dragging[c.id]!);
        setDragging(({ [c.id]: _done, ...rest }) => rest);
      } else if (c.type === 'dimensions' && c.dimensions) {
        const d = c.dimensions;
        setSizes((m) => ({ ...m, [c.id]: d }));
      } else if (c.type === 'select') {
        setSelected((s) => {
          const n = new Set(s);
          if (c.selected) n.add(c.id);
          else n.delete(c.id);
          return n;
        });
      }
    }
    const removed = changes.flatMap((c) => (c.type === 'remove' ? [c.id] : []));
    if (removed.length > 0) p.onRemoveTables(removed);
  }

  function onEdgesChange(changes: EdgeChange[]) {
    for (const c of changes) if (c.type === 'select') p.onSelectJoin(c.selected ? c.id : undefined);
    const removed = changes.flatMap((c) => (c.type === 'remove' && !c.id.startsWith('suggest:') ? [c.id] : []));
    if (removed.length > 0) p.onRemoveJoins(removed);
  }

  function onConnect(c: Connection) {
    if (!c.sourceHandle || !c.targetHandle) return;
    p.onConnect({ table: c.source, column: c.sourceHandle }, { table: c.target, column: c.targetHandle });
  }

  function onDrop(e: DragEvent) {
    const payload = e.dataTransfer.getData(DRAG_TYPE);
    if (!payload) return;
    e.preventDefault();
    p.onDropTable(payload, flow.screenToFlowPosition({ x: e.clientX, y: e.clientY }));
  }

  return (
    <div
      ref={box}
      className="j-canvas"
      data-testid="designer-canvas"
      onDragOver={(e) => {
        if (e.dataTransfer.types.includes(DRAG_TYPE)) {
          e.preventDefault();
          e.dataTransfer.dropEffect = 'copy';
        }
      }}
      onDrop={onDrop}
    >
      <ReactFlow
        nodes={nodes}
        edges={edges}
        nodeTypes={nodeTypes}
        onNodesChange={onNodesChange}
        onEdgesChange={onEdgesChange}
        onConnect={onConnect}
        connectionMode={ConnectionMode.Loose}
        deleteKeyCode={['Delete', 'Backspace']}
        minZoom={0.2}
        colorMode={dark ? 'dark' : 'light'}
        proOptions={{ hideAttribution: true }}
      >
        <Background gap={16} />
        <Controls showInteractive={false} fitViewOptions={fitOptions()} />
        <MiniMap
          pannable
          zoomable
          nodeColor={dark ? '#3a4252' : '#c7d2e6'}
          nodeStrokeColor={dark ? '#8a94a6' : '#7d8aa3'}
        />
      </ReactFlow>
      {p.graph.tables.length === 0 && (
        <p className="j-canvas-hint">Drag tables and views from the catalog here, then draw joins between columns.</p>
      )}
    </div>
  );
}
