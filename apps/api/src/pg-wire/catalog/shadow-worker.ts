/**
 * The child process that holds the shadow catalog's PGlite (shadow-boot.mjs starts it and ties
 * its life to the API server's). Every PGlite call is a synchronous WebAssembly run, so it
 * happens here and never on the API server's event loop; and the hundreds of MB PGlite takes
 * are this process's, given back whole to the system when it ends. Requests arrive over the IPC
 * channel one at a time (CatalogShadow sends the next only after this one's reply).
 */
import { PGlite } from '@electric-sql/pglite';
import type { ShadowCatalog } from './shadow.js';
import {
  EMPTY_LOADED,
  OWNER_ROLE,
  READER_ROLE,
  needsSystemTableMods,
  quoteIdent,
  quoteLiteral,
  switchStatements,
  wantedCatalog,
  type LoadedCatalog,
} from './catalog-sql.js';
import {
  bindMessage,
  concat,
  dataRowTexts,
  describeMessage,
  exchanges,
  executeMessage,
  noticeFields,
  parseMessage,
  queryMessage,
  splitMessages,
  syncMessage,
  type BackendMessage,
} from './protocol.js';

export type WorkerRequest = {
  readonly id: number;
  readonly key: string;
  /** left out when the process already holds the catalog of `key` */
  readonly catalog?: ShadowCatalog;
} & (
  | { readonly op: 'simple'; readonly sql: string }
  | { readonly op: 'describe'; readonly sql: string; readonly paramTypeOids: readonly number[] }
  | {
      readonly op: 'execute';
      readonly sql: string;
      readonly paramTypeOids: readonly number[];
      readonly paramFormats: readonly number[];
      readonly params: readonly (Uint8Array | null)[];
      readonly resultFormats: readonly number[];
    }
);

export type WorkerResult =
  | { readonly bytes: Uint8Array }
  | { readonly error: Uint8Array }
  | { readonly paramOids: number[]; readonly rowDescription: Uint8Array | null }
  | { readonly rowDescription: Uint8Array | null; readonly rows: Uint8Array[]; readonly complete: Uint8Array };

export type WorkerMessage =
  | { readonly type: 'ready'; readonly version: string }
  | { readonly type: 'failed'; readonly message: string }
  | {
      readonly type: 'reply';
      readonly id: number;
      readonly loadedKey: string | undefined;
      readonly result: WorkerResult;
      /** something the request did outlived it: the process must not serve anyone again */
      readonly poisoned: boolean;
    }
  | {
      readonly type: 'error';
      readonly id: number;
      readonly loadedKey: string | undefined;
      readonly message: string;
      /** PGlite itself failed: the process must not serve anyone again */
      readonly fatal: boolean;
    };

/** A catalog PostgreSQL refused to create (an unknown type, a key naming no column): the old one stays. */
class CatalogLoadError extends Error {}

/** PGlite's initdb names the one database this. */
const DATABASE = 'postgres';
/**
 * After this many catalog switches the shadow cleans up after itself. PGlite runs neither
 * autovacuum nor a checkpointer: without a VACUUM the catalogs fill with dead rows, and without
 * a CHECKPOINT no WAL segment is ever recycled, so the in-memory WAL grows by about 1 MB per
 * switch of 40 tables (measured: 500 MB to 1,050 MB RSS over 300 switches; with this, it stays
 * near 750 MB).
 */
const MAINTAIN_EVERY = 32;
const NEXT_XID = 'pg_catalog.pg_snapshot_xmax(pg_catalog.pg_current_snapshot())::text';

let db: PGlite;
let loadedKey: string | undefined;
let loaded: LoadedCatalog = EMPTY_LOADED;
let searchPath = "''";
/** The bootstrap superuser, quoted: the shadow's own statements run as it. */
let superuser = '';
/** Every transaction id from here on was started by a client's statements. */
let baseline = '0';
const typeNames = new Map<string, string>();
let switches = 0;

async function exchange(parts: readonly Uint8Array[]): Promise<BackendMessage[]> {
  return splitMessages(await db.execProtocolRaw(concat(parts), { syncToFs: false }));
}

function errorText(m: BackendMessage): string {
  const f = noticeFields(m.bytes);
  return `${f.get('M') ?? 'error'}${f.get('C') ? ` (SQLSTATE ${f.get('C')})` : ''}`;
}

/** Runs statements of the shadow's own as one Query; any ErrorResponse throws. */
async function admin(sql: string): Promise<(string | null)[][]> {
  const messages = await exchange([queryMessage(sql)]);
  const error = messages.find((m) => m.type === 'E');
  if (error) throw new Error(`the shadow catalog's own statement failed: ${errorText(error)}`);
  return messages.filter((m) => m.type === 'D').map((m) => dataRowTexts(m.bytes));
}

async function start(): Promise<string> {
  db = await PGlite.create();
  await admin(
    [
      `CREATE ROLE ${OWNER_ROLE} NOLOGIN`,
      `CREATE ROLE ${READER_ROLE} NOLOGIN`,
      // clients' statements may not create temporary tables either: nothing of theirs may outlive a request
      `REVOKE TEMPORARY ON DATABASE ${DATABASE} FROM PUBLIC`,
      `GRANT CREATE ON DATABASE ${DATABASE} TO ${OWNER_ROLE}`,
      `GRANT CREATE ON SCHEMA public TO ${OWNER_ROLE}`,
      // REFERENCES, not SELECT: information_schema lists tables, columns and constraints to a
      // role holding any privilege on them, while reading the empty stand-ins fails (42501), so
      // a statement that mixes catalog tables with a source's is refused, never answered empty
      `ALTER DEFAULT PRIVILEGES FOR ROLE ${OWNER_ROLE} GRANT REFERENCES ON TABLES TO ${READER_ROLE}`,
      `ALTER DEFAULT PRIVILEGES FOR ROLE ${OWNER_ROLE} GRANT USAGE ON SCHEMAS TO ${READER_ROLE}`,
    ].join(';\n'),
  );
  const rows = await admin(
    `SELECT pg_catalog.current_setting('server_version'); SELECT ${NEXT_XID}; SELECT rolname FROM pg_catalog.pg_authid WHERE oid = 10`,
  );
  baseline = rows[1]![0]!;
  superuser = quoteIdent(rows[2]![0]!);
  return rows[0]![0]!;
}

/** PostgreSQL's own spelling of each new type text; also the check that the text is one type name and nothing else. */
async function resolveTypes(texts: Iterable<string>): Promise<void> {
  const fresh = [...new Set(texts)].filter((t) => !typeNames.has(t));
  if (fresh.length === 0) return;
  const messages = await exchange(
    fresh.map((t) =>
      queryMessage(
        `SELECT pg_catalog.format_type(pg_catalog.to_regtype(${quoteLiteral(t)}), pg_catalog.to_regtypemod(${quoteLiteral(t)}))`,
      ),
    ),
  );
  const answers = exchanges(messages);
  const bad: string[] = [];
  fresh.forEach((t, i) => {
    const answer = answers[i]?.messages ?? [];
    const error = answer.find((m) => m.type === 'E');
    const row = answer.find((m) => m.type === 'D');
    const name = row ? dataRowTexts(row.bytes)[0] : null;
    if (error) bad.push(`"${t}": ${errorText(error)}`);
    else if (!name) bad.push(`"${t}": no such type`);
    else typeNames.set(t, name);
  });
  if (bad.length > 0)
    throw new CatalogLoadError(`the shadow catalog has column types PostgreSQL does not know: ${bad.join('; ')}`);
}

async function ensureCatalog(key: string, catalog: ShadowCatalog | undefined): Promise<void> {
  if (key === loadedKey) return;
  if (!catalog) throw new Error('the shadow catalog was not sent with its request');
  const wanted = wantedCatalog(catalog);
  await resolveTypes([...wanted.relations.values()].flatMap((r) => r.relation.columns.map((c) => c.pgType)));
  const script = ['BEGIN'];
  if (needsSystemTableMods(wanted.schemas)) script.push('SET LOCAL allow_system_table_mods = on');
  script.push(
    `SET LOCAL ROLE ${OWNER_ROLE}`,
    ...switchStatements(loaded, wanted, typeNames),
    'COMMIT',
    `SELECT ${NEXT_XID}`,
  );
  const messages = await exchange([queryMessage(script.join(';\n'))]);
  const error = messages.find((m) => m.type === 'E');
  if (error) {
    await admin('ROLLBACK');
    throw new CatalogLoadError(`the shadow catalog could not be loaded: ${errorText(error)}`);
  }
  baseline = dataRowTexts(messages.find((m) => m.type === 'D')!.bytes)[0]!;
  loaded = { schemas: new Set(wanted.schemas), relations: wanted.relations };
  loadedKey = key;
  searchPath = catalog.searchPath.length > 0 ? catalog.searchPath.map(quoteIdent).join(', ') : "''";
  if (++switches % MAINTAIN_EVERY === 0) {
    // each on its own: neither may run inside a transaction block
    await admin('VACUUM');
    await admin('CHECKPOINT');
    baseline = (await admin(`SELECT ${NEXT_XID}`))[0]![0]!;
  }
}

/**
 * Runs a client's messages so that nothing they do outlives the request:
 * - as the reader role (SELECT on the shadow's relations, CREATE and TEMPORARY nowhere),
 * - inside a READ ONLY transaction that is rolled back afterwards, with
 *   default_transaction_read_only on for anything run after a COMMIT or ROLLBACK of the client's,
 * - then DISCARD ALL, so no setting, prepared statement, cursor, lock or LISTEN passes on.
 * PGlite runs PostgreSQL in single-user mode, where the signed-in user is always the bootstrap
 * superuser, so a client can still take that role back (SET SESSION AUTHORIZATION) and commit
 * something past the rollback; every transaction started since the last request is therefore
 * checked, and one that committed poisons the process.
 */
async function guarded(client: readonly Uint8Array[]): Promise<{ messages: BackendMessage[]; poisoned: boolean }> {
  // the prelude runs alone: the client's messages must not run unless it took effect
  const prelude = await exchange([
    queryMessage(
      `SET SESSION AUTHORIZATION ${READER_ROLE}; SET search_path TO ${searchPath}; SET default_transaction_read_only = on`,
    ),
    queryMessage('BEGIN READ ONLY'),
  ]);
  const preludeError = prelude.find((m) => m.type === 'E');
  if (preludeError) throw new Error(`the shadow catalog could not prepare the request: ${errorText(preludeError)}`);
  const reply = exchanges(
    await exchange([
      ...client,
      queryMessage('ROLLBACK'),
      queryMessage('DISCARD ALL'),
      // DISCARD ALL (SET SESSION AUTHORIZATION DEFAULT) leaves the session user as it is in
      // single-user mode, so the superuser is named
      queryMessage(`SET SESSION AUTHORIZATION ${superuser}`),
      queryMessage(
        `SELECT x.next, (SELECT count(*) FROM pg_catalog.generate_series(${baseline}::bigint, x.next::bigint - 1) g ` +
          `WHERE pg_catalog.pg_xact_status(g::text::pg_catalog.xid8) = 'committed')::text FROM (SELECT ${NEXT_XID} AS next) x`,
      ),
    ]),
  );
  // one exchange for the client's messages, four for ours; any other count means a message
  // was taken as something else (a COPY FROM STDIN reading our ROLLBACK), so nothing can be trusted
  if (reply.length !== 5 || reply.some((r) => r.status === ''))
    throw new Error('the embedded PostgreSQL lost track of the request');
  const check = reply[4]!.messages;
  const row = check.find((m) => m.type === 'D');
  let poisoned = reply.slice(1).some((r) => r.messages.some((m) => m.type === 'E')) || !row;
  if (row) {
    const [next, committed] = dataRowTexts(row.bytes);
    if (committed !== '0') poisoned = true;
    baseline = next!;
  }
  return { messages: reply[0]!.messages, poisoned };
}

/**
 * Copies the chosen messages into one fresh buffer of this process's own (the reply PGlite gave
 * may be reused) and answers views of it. The channel's serializer sends each view's bytes
 * alone, and the parent reads them back as views of the one message it received.
 */
function pack(messages: readonly BackendMessage[]): Uint8Array[] {
  const all = concat(messages.map((m) => m.bytes));
  const views: Uint8Array[] = [];
  let at = 0;
  for (const m of messages) {
    views.push(all.subarray(at, at + m.bytes.length));
    at += m.bytes.length;
  }
  return views;
}

/** Our wrapping transaction makes a client's BEGIN warn; without it PostgreSQL would not. */
function isWrapperWarning(m: BackendMessage): boolean {
  if (m.type !== 'N') return false;
  const f = noticeFields(m.bytes);
  return f.get('C') === '25001' && f.get('M') === 'there is already a transaction in progress';
}

async function handle(req: WorkerRequest): Promise<{ result: WorkerResult; poisoned: boolean }> {
  await ensureCatalog(req.key, req.catalog);
  switch (req.op) {
    case 'simple': {
      const { messages, poisoned } = await guarded([queryMessage(req.sql)]);
      const bytes = concat(messages.filter((m) => !isWrapperWarning(m)).map((m) => m.bytes));
      return { result: { bytes }, poisoned };
    }
    case 'describe': {
      const { messages, poisoned } = await guarded([
        parseMessage(req.sql, req.paramTypeOids),
        describeMessage('S'),
        syncMessage(),
      ]);
      const kept = messages.filter((m) => m.type === 'E' || m.type === 't' || m.type === 'T');
      const views = pack(kept);
      const error = views[kept.findIndex((m) => m.type === 'E')];
      if (error) return { result: { error }, poisoned };
      const params = kept.find((m) => m.type === 't');
      if (!params) throw new Error('the embedded PostgreSQL described a statement without its parameters');
      const dv = new DataView(params.bytes.buffer, params.bytes.byteOffset, params.bytes.byteLength);
      const paramOids = Array.from({ length: dv.getInt16(5) }, (_, i) => dv.getUint32(7 + 4 * i));
      const rowDescription = views[kept.findIndex((m) => m.type === 'T')] ?? null;
      return { result: { paramOids, rowDescription }, poisoned };
    }
    case 'execute': {
      const { messages, poisoned } = await guarded([
        parseMessage(req.sql, req.paramTypeOids),
        bindMessage(req.paramFormats, req.params, req.resultFormats),
        describeMessage('P'),
        executeMessage(),
        syncMessage(),
      ]);
      const kept = messages.filter((m) => 'ETDCI'.includes(m.type));
      const views = pack(kept);
      const at = (type: string) => kept.findIndex((m) => m.type === type);
      const error = views[at('E')];
      if (error) return { result: { error }, poisoned };
      // an empty statement ends with EmptyQueryResponse where others send CommandComplete
      const complete = views[at('C')] ?? views[at('I')];
      if (!complete) throw new Error('the embedded PostgreSQL did not complete the statement');
      const rows = views.filter((_, i) => kept[i]!.type === 'D');
      return { result: { rowDescription: views[at('T')] ?? null, rows, complete }, poisoned };
    }
  }
}

/**
 * Sends one message to the API server. A channel that is gone needs no answer: this process
 * ends on its 'disconnect' (shadow-boot.mjs).
 */
function post(m: WorkerMessage): void {
  process.send?.(m, undefined, undefined, () => undefined);
}

const started = start();
started.then(
  (version) => post({ type: 'ready', version }),
  (e: unknown) => post({ type: 'failed', message: e instanceof Error ? e.message : String(e) }),
);

let queue: Promise<unknown> = started.catch(() => undefined);

process.on('message', (req: WorkerRequest) => {
  queue = queue.then(async () => {
    try {
      await started;
      const { result, poisoned } = await handle(req);
      post({ type: 'reply', id: req.id, loadedKey, result, poisoned });
    } catch (e) {
      post({
        type: 'error',
        id: req.id,
        loadedKey,
        message: e instanceof Error ? e.message : String(e),
        fatal: !(e instanceof CatalogLoadError),
      });
    }
  });
});
