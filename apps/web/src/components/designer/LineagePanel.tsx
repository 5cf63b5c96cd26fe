import { Background, ReactFlow, type Edge, type Node } from '@xyflow/react';
import { useTheme } from '../../lib/theme.js';
import { useAsync } from '../../lib/use-async.js';
import { designerApi, type ViewGraphReply } from '../../lib/designer-api.js';

/** The view, what it reads (left) and what reads it (right), one step each way. */
export function lineageOf(g: ViewGraphReply, viewId: string): { nodes: Node[]; edges: Edge[] } {
  const ups = g.edges.filter((e) => e.to === viewId).map((e) => e.from);
  const downs = g.edges.filter((e) => e.from === viewId).map((e) => e.to);
  const label = (id: string) => g.nodes.find((n) => n.id === id)?.label ?? id.replace(/^\w+:/, '');
  const kind = (id: string) => (id.startsWith('source:') ? 'source' : 'view');
  const column = (ids: string[], x: number) =>
    ids.map((id, i) => ({
      id,
      position: { x, y: i * 60 - ((ids.length - 1) * 60) / 2 },
      data: { label: label(id) },
      className: `j-lineage-${kind(id)}`,
      sourcePosition: 'right',
      targetPosition: 'left',
    })) as Node[];
  return {
    nodes: [...column(ups, 0), ...column([viewId], 320), ...column(downs, 640)],
    edges: [
      ...ups.map((u) => ({ id: `${u}>${viewId}`, source: u, target: viewId })),
      ...downs.map((d) => ({ id: `${viewId}>${d}`, source: viewId, target: d })),
    ],
  };
}

export function LineagePanel({ schema, name }: { schema: string; name: string }) {
  const graph = useAsync(() => designerApi.graph(), [schema, name]);
  const { dark } = useTheme();
  if (graph.error) return <p className="j-error j-pad">{graph.error.message}</p>;
  if (!graph.data) return <p className="j-muted j-pad">Loading lineage…</p>;
  const { nodes, edges } = lineageOf(graph.data, `view:${schema}.${name}`);
  return (
    <div className="j-lineage" data-testid="designer-lineage">
      <ReactFlow
        nodes={nodes}
        edges={edges}
        fitView
        fitViewOptions={{ padding: 0.1 }}
        nodesDraggable={false}
        nodesConnectable={false}
        colorMode={dark ? 'dark' : 'light'}
        proOptions={{ hideAttribution: true }}
      >
        <Background gap={16} />
      </ReactFlow>
    </div>
  );
}
