import { createContext, useContext } from 'react';
import type { ColumnRef } from '../../lib/view-graph/model.js';

/** What a table node on the canvas can do, without the graph passing through node data. */
export interface DesignerActions {
  toggleColumn(ref: ColumnRef): void;
  removeTable(alias: string): void;
}

export const DesignerActionsContext = createContext<DesignerActions>({
  toggleColumn: () => undefined,
  removeTable: () => undefined,
});

export const useDesignerActions = () => useContext(DesignerActionsContext);
