/** The engine source holding materialized views' rows: Junction's own store, no user's source. */
export const STORE_SOURCE = 'junction_mv';
