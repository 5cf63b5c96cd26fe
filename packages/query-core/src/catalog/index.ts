export { Catalog } from './catalog.js';
export type { ResolvedRelation, ResolveOptions } from './catalog.js';
export type { NamePart } from './names.js';
