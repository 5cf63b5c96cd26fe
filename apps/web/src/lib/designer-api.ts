import type { ApiError } from './api-error.js';
import { requestJson } from './http.js';
import type { GraphForeignKey } from './view-graph/model.js';

export interface VirtualSchema {
  readonly id: string;
  readonly name: string;
  readonly description: string | null;
  readonly views: number;
}
export interface ViewColumn {
  readonly name: string;
  readonly type: string;
  readonly nullable: boolean;
}
export interface StoredView {
  readonly id: string;
  readonly schema: string;
  readonly name: string;
  readonly sql: string;
  readonly layout: unknown;
  readonly columns: readonly ViewColumn[] | null;
  readonly description: string | null;
  readonly updatedAt: string;
}
export interface TableDetail {
  readonly source: string;
  readonly schema: string;
  readonly name: string;
  readonly kind: string;
  readonly primaryKey: readonly string[];
  readonly columns: readonly { name: string; type: string }[];
  readonly foreignKeys: readonly GraphForeignKey[];
}
export interface Validation {
  readonly ok: boolean;
  readonly columns?: readonly ViewColumn[];
  readonly error?: { code: string; kind: string; message: string };
}
export interface Impact {
  readonly columns: readonly ViewColumn[];
  readonly removed: readonly string[];
  readonly changed: readonly { name: string; from: string; to: string }[];
  readonly dependants: readonly { id: string; schema: string; name: string; breaks: boolean; reason?: string }[];
  /** views reading it that you may not see: counted, never named */
  readonly hiddenDependants: number;
  readonly hiddenBreaking: number;
}
export interface ViewGraphReply {
  readonly nodes: readonly { id: string; kind: 'source' | 'view'; label: string }[];
  readonly edges: readonly { from: string; to: string }[];
}

const id = (s: string) => encodeURIComponent(s);

/** The virtual layer's routes (/schemas, /views) and what the designer reads of the catalog. */
export const designerApi = {
  schemas: () => requestJson<VirtualSchema[]>('/schemas'),
  createSchema: (name: string) => requestJson<VirtualSchema>('/schemas', { body: { name } }),
  renameSchema: (schemaId: string, name: string) =>
    requestJson<VirtualSchema>(`/schemas/${id(schemaId)}`, { method: 'PATCH', body: { name } }),
  deleteSchema: (schemaId: string) => requestJson<{ ok: boolean }>(`/schemas/${id(schemaId)}`, { method: 'DELETE' }),
  views: () => requestJson<StoredView[]>('/views'),
  createView: (v: { schema: string; name: string; sql: string; layout: unknown }) =>
    requestJson<StoredView>('/views', { body: v }),
  updateView: (viewId: string, v: { sql: string; layout: unknown; confirmBreaking?: boolean }) =>
    requestJson<StoredView>(`/views/${id(viewId)}`, { method: 'PATCH', body: v }),
  deleteView: (viewId: string) => requestJson<{ ok: boolean }>(`/views/${id(viewId)}`, { method: 'DELETE' }),
  validate: (sql: string) => requestJson<Validation>('/views/validate', { body: { sql } }),
  impact: (viewId: string, sql: string) => requestJson<Impact>(`/views/${id(viewId)}/impact`, { body: { sql } }),
  graph: () => requestJson<ViewGraphReply>('/views/graph'),
  table: (source: string, schema: string, table: string) =>
    requestJson<TableDetail>(`/catalog/${[source, schema, table].map(id).join('/')}`),
};

export type { ApiError };
