import { Handle, Position, type Node, type NodeProps } from '@xyflow/react';
import type { GraphTable } from '../../lib/view-graph/model.js';
import { useDesignerActions } from './designer-actions.js';

export type TableNodeData = { table: GraphTable; picked: readonly string[] };
export type TableFlowNode = Node<TableNodeData, 'table'>;

/** A table on the canvas: its columns with types, a pick box each, and a join handle each side. */
export function TableNodeView({ data }: NodeProps<TableFlowNode>) {
  const { table, picked } = data;
  const actions = useDesignerActions();
  const name = table.path.join('.');
  return (
    <div className="j-dnode" data-testid={`node-${table.alias}`}>
      <div className="j-dnode-head">
        <strong>{table.alias}</strong>
        <span className="j-dnode-name" title={name}>
          {name}
        </span>
        <span className={`j-badge${table.kind === 'view' ? '' : ' source'}`}>
          {table.kind === 'view' ? 'view' : (table.engine ?? 'table')}
        </span>
        <button
          type="button"
          className="j-dnode-x nodrag"
          aria-label={`Remove ${table.alias}`}
          title="Remove from canvas (Delete)"
          onClick={() => actions.removeTable(table.alias)}
        >
          ×
        </button>
      </div>
      <ul className="j-dnode-cols">
        {table.columns.map((c) => (
          <li key={c.name} className="j-dnode-col">
            <Handle type="target" position={Position.Left} id={c.name} className="j-handle" />
            <label className="nodrag">
              <input
                type="checkbox"
                checked={picked.includes(c.name)}
                onChange={() => actions.toggleColumn({ table: table.alias, column: c.name })}
                data-testid={`pick-${table.alias}.${c.name}`}
              />
              <span className="j-dnode-colname">{c.name}</span>
            </label>
            <span className="j-coltype">{c.type}</span>
            <Handle type="source" position={Position.Right} id={c.name} className="j-handle" />
          </li>
        ))}
      </ul>
    </div>
  );
}
