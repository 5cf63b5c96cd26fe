import fs from 'node:fs';
import path from 'node:path';
import { JunctionError } from '../contract/errors.js';
import type { DocumentTableSpec, SourceConfig } from '../contract/connector.js';
import { redact } from '../runtime/errors.js';

/**
 * Where a document table's documents come from, with the admin's limits enforced here:
 * files only under the allowed roots (JUNCTION_FILE_ROOTS, checked after symlinks are
 * resolved, so a link cannot lead out), URLs only on allowed hosts (JUNCTION_URL_HOSTS) and
 * never redirected to another host, secret headers only ever sent to the table's own host.
 */

export type DocumentLocation =
  | {
      readonly kind: 'file';
      readonly path: string;
      readonly shown: string;
      /** as stat'ed when resolved: what a cache of the file's rows is valid for */
      readonly stamp: { readonly size: number; readonly mtimeMs: number; readonly ino: number };
    }
  | { readonly kind: 'url'; readonly url: URL; readonly shown: string };

/** An open document: its bytes, and a way to stop reading them. */
export interface OpenDocument {
  readonly chunks: AsyncIterable<Uint8Array | string>;
  close(): void;
  /** files: the bytes read so far (a cache judges from them whether the whole table will fit) */
  readonly bytesRead?: () => number;
}

const GLOB = /[*?]/;

function outsideRoots(source: string, shown: string, why: string): JunctionError {
  return new JunctionError(
    'file_outside_roots',
    'forbidden',
    `Source "${source}" may not read "${shown}": ${why}. Documents must lie under the folders the administrator allowed (JUNCTION_FILE_ROOTS).`,
    { details: { source, path: shown } },
  );
}

function under(real: string, root: string): boolean {
  return real === root || real.startsWith(root.endsWith(path.sep) ? root : root + path.sep);
}

/** A path's real path, undefined when it does not exist; `sync`: see resolveLocations. */
function realpathOf(p: string, sync: boolean): string | undefined | Promise<string | undefined> {
  if (!sync) return fs.promises.realpath(p).catch(() => undefined);
  try {
    return fs.realpathSync.native(p);
  } catch {
    return undefined;
  }
}

function statOf(p: string, sync: boolean): fs.Stats | Error | Promise<fs.Stats | Error> {
  if (!sync) return fs.promises.stat(p).catch((err: unknown) => err as Error);
  try {
    return fs.statSync(p);
  } catch (err) {
    return err as Error;
  }
}

async function realRoots(config: SourceConfig, sync: boolean): Promise<string[]> {
  const found = await Promise.all(
    // a configured root that does not exist holds no documents
    (config.options?.fileRoots ?? []).map((r) => (path.isAbsolute(r) ? realpathOf(r, sync) : undefined)),
  );
  return found.filter((r) => r !== undefined);
}

/** The folder relative document paths resolve in: `documents.root`, else the first file root. */
async function documentRoot(config: SourceConfig, roots: readonly string[]): Promise<string> {
  const root = config.options?.documents?.root;
  if (root === undefined) return roots[0];
  if (!path.isAbsolute(root))
    throw new JunctionError(
      'document_root_invalid',
      'user',
      `The documents root "${root}" of source "${config.name}" must be an absolute path.`,
      {
        details: { source: config.name, root },
      },
    );
  return root;
}

function globRegExp(segment: string): RegExp {
  let re = '';
  for (const c of segment) re += c === '*' ? '[^/]*' : c === '?' ? '[^/]' : c.replace(/[.+^${}()|[\]\\]/g, '\\$&');
  return new RegExp('^' + re + '$');
}

/** Files matching glob segments below `dir`, sorted; '**' spans any number of folders (not through symlinked ones). */
async function expand(dir: string, segments: readonly string[]): Promise<string[]> {
  if (segments.length === 0) return [dir];
  const [seg, ...rest] = segments;
  if (!GLOB.test(seg)) return expand(path.join(dir, seg), rest);
  let entries: fs.Dirent[];
  try {
    entries = await fs.promises.readdir(dir, { withFileTypes: true });
  } catch {
    return [];
  }
  entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const out: string[] = [];
  if (seg === '**') {
    out.push(...(await expand(dir, rest)));
    for (const e of entries)
      if (e.isDirectory() && !e.name.startsWith('.')) out.push(...(await expand(path.join(dir, e.name), segments)));
    return out;
  }
  const re = globRegExp(seg);
  for (const e of entries) {
    // like a shell, a wildcard does not match hidden names
    if (e.name.startsWith('.') || !re.test(e.name)) continue;
    if (rest.length > 0 ? e.isDirectory() || e.isSymbolicLink() : true)
      out.push(...(await expand(path.join(dir, e.name), rest)));
  }
  return out;
}

/**
 * The documents of a table, in order. Files: the path (globs expanded by Junction) resolved
 * and each match's real path checked under a root. A literal path that does not exist is an
 * error (`file_missing`); a glob that matches nothing gives no documents.
 */
export async function resolveLocations(config: SourceConfig, table: DocumentTableSpec): Promise<DocumentLocation[]> {
  const source = config.name;
  if ('url' in table.from) return [{ kind: 'url', url: checkUrl(config, table.from.url), shown: table.from.url }];
  const given = table.from.path;
  const segments = given.split(/[\\/]+/);
  if (segments.includes('..')) throw outsideRoots(source, given, "a path may not contain '..'");
  // Every query resolves its files (a cache of their rows is checked against them). One named
  // file takes a few system calls of microseconds each: made synchronously, they cost a tenth of
  // the thread pool's round trips. A glob's many files go out together, asynchronously.
  const sync = !GLOB.test(given);
  const roots = await realRoots(config, sync);
  if (roots.length === 0)
    throw new JunctionError(
      'file_roots_unset',
      'forbidden',
      `Source "${source}" reads files, but no folders are allowed for documents: the administrator sets them with JUNCTION_FILE_ROOTS.`,
      { details: { source } },
    );
  const base = path.isAbsolute(given) ? path.parse(given).root : await documentRoot(config, roots);
  const rel = path.isAbsolute(given) ? segments.filter((s, i) => !(i === 0 && s === '')) : segments;
  const matches = GLOB.test(given)
    ? await expand(
        base,
        rel.filter((s) => s !== '' && s !== '.'),
      )
    : [path.resolve(base, ...rel)];
  // stat follows links to the file realpath names
  const found = await Promise.all(matches.map((m) => Promise.all([realpathOf(m, sync), statOf(m, sync)])));
  const out: DocumentLocation[] = [];
  for (let i = 0; i < matches.length; i++) {
    const m = matches[i];
    const [real, st] = found[i];
    if (real === undefined) {
      if (GLOB.test(given)) continue;
      throw new JunctionError(
        'file_missing',
        'external',
        `Document "${given}" of table "${table.name}" (source "${source}") does not exist.`,
        {
          details: { source, table: table.name, path: given },
        },
      );
    }
    if (!roots.some((r) => under(real, r)))
      throw outsideRoots(
        source,
        given,
        m === real
          ? 'it is outside the allowed folders'
          : 'it leads (through a symbolic link) outside the allowed folders',
      );
    if (st instanceof Error) throw st;
    if (!st.isFile()) {
      if (GLOB.test(given)) continue;
      throw new JunctionError(
        'file_missing',
        'external',
        `Document "${given}" of table "${table.name}" (source "${source}") is not a file.`,
        {
          details: { source, table: table.name, path: given },
        },
      );
    }
    out.push({
      kind: 'file',
      path: real,
      shown: path.isAbsolute(given) ? real : path.relative(base, m) || given,
      stamp: { size: st.size, mtimeMs: st.mtimeMs, ino: st.ino },
    });
  }
  return out;
}

export function hostAllowed(config: SourceConfig, url: URL): boolean {
  const host = url.hostname.toLowerCase();
  const port = url.port || (url.protocol === 'https:' ? '443' : '80');
  return (config.options?.urlHosts ?? []).some((entry) => {
    const e = entry.trim().toLowerCase();
    const m = /^(.*?)(?::(\d+))?$/.exec(e)!;
    return m[1] === host && (m[2] === undefined || m[2] === port);
  });
}

function hostNotAllowed(config: SourceConfig, url: URL): JunctionError {
  return new JunctionError(
    'url_host_not_allowed',
    'forbidden',
    `Source "${config.name}" may not fetch documents from ${url.host}: the administrator allows only the hosts in JUNCTION_URL_HOSTS.`,
    { details: { source: config.name, host: url.host } },
  );
}

export function checkUrl(config: SourceConfig, text: string): URL {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new JunctionError('url_invalid', 'user', `"${text}" is not a URL (source "${config.name}").`, {
      details: { source: config.name },
    });
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new JunctionError(
      'url_invalid',
      'user',
      `Source "${config.name}" fetches documents over http or https only, not ${url.protocol}`,
      {
        details: { source: config.name },
      },
    );
  if (url.username || url.password)
    throw new JunctionError(
      'url_invalid',
      'user',
      `Source "${config.name}": put credentials for ${url.host} in the secret headers, not in the URL.`,
      {
        details: { source: config.name },
      },
    );
  if (!hostAllowed(config, url)) throw hostNotAllowed(config, url);
  return url;
}

/**
 * The secret headers for a table: the source's password holds JSON
 * `{"<table>" | "*": {"Header": "value"}}`; the table's own entry wins over "*".
 */
export function secretHeaders(config: SourceConfig, table: string): Record<string, string> {
  if (!config.password) return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(config.password);
  } catch {
    // the text is a secret: it is never quoted back
    throw new JunctionError(
      'document_headers_invalid',
      'user',
      `The secret headers of source "${config.name}" are not valid JSON; expected {"<table>" or "*": {"Header": "value"}}.`,
      { details: { source: config.name } },
    );
  }
  const pick = (k: string): Record<string, string> => {
    const v = (parsed as Record<string, unknown> | null)?.[k];
    if (v === undefined) return {};
    if (!v || typeof v !== 'object' || Object.values(v).some((x) => typeof x !== 'string'))
      throw new JunctionError(
        'document_headers_invalid',
        'user',
        `The secret headers of source "${config.name}" for "${k}" must be an object of header names to text values.`,
        { details: { source: config.name } },
      );
    return v as Record<string, string>;
  };
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) return pick('\0');
  return { ...pick('*'), ...pick(table) };
}

/** Every value that must never appear in a message: the headers' values. */
export function secretsOf(config: SourceConfig): string[] {
  try {
    const parsed = JSON.parse(config.password ?? '{}') as Record<string, Record<string, string>>;
    return Object.values(parsed ?? {}).flatMap((h) =>
      h && typeof h === 'object' ? Object.values(h).filter((x) => typeof x === 'string') : [],
    );
  } catch {
    return config.password ? [config.password] : [];
  }
}

const MAX_REDIRECTS = 5;

/**
 * The chunks without a leading byte order mark, which JSON.parse refuses and editors on
 * Windows write. Returning early from the loop still closes the underlying stream.
 */
async function* withoutBom(chunks: AsyncIterable<Uint8Array | string>): AsyncGenerator<Uint8Array | string> {
  let first = true;
  for await (let c of chunks) {
    if (first) {
      if (typeof c === 'string') {
        if (c.charCodeAt(0) === 0xfeff) c = c.slice(1);
      } else if (c[0] === 0xef && c[1] === 0xbb && c[2] === 0xbf) c = c.subarray(3);
      // a chunk this short is rare enough to not split the mark across chunks
      first = c.length === 0;
      if (c.length === 0) continue;
    }
    yield c;
  }
}

/** Opens one document for reading; aborting `signal` stops the read (and the download) at once. */
export async function openDocument(
  config: SourceConfig,
  table: DocumentTableSpec,
  loc: DocumentLocation,
  signal: AbortSignal,
): Promise<OpenDocument> {
  if (loc.kind === 'file') {
    // decoded by the stream (a UTF-8 character split between chunks is carried over)
    const stream = fs.createReadStream(loc.path, { highWaterMark: 64 * 1024, encoding: 'utf8', signal });
    return { chunks: withoutBom(stream), close: () => stream.destroy(), bytesRead: () => stream.bytesRead };
  }
  const headers = secretHeaders(config, table.name);
  const secrets = secretsOf(config);
  const abort = new AbortController();
  const onAbort = (): void => abort.abort();
  signal.addEventListener('abort', onAbort, { once: true });
  let url = loc.url;
  try {
    for (let hop = 0; ; hop++) {
      let res: Response;
      try {
        res = await fetch(url, { headers, redirect: 'manual', signal: abort.signal });
      } catch (err) {
        if (signal.aborted) throw err;
        const why = redact(
          String((err as { cause?: { code?: string } }).cause?.code ?? (err as Error).message),
          secrets,
          [config.name],
        );
        throw new JunctionError(
          'document_fetch_failed',
          'external',
          `Source "${config.name}" could not fetch ${url.origin}${url.pathname} for table "${table.name}": ${why}.`,
          { details: { source: config.name, table: table.name, host: url.host } },
        );
      }
      if (res.status >= 300 && res.status < 400 && res.headers.get('location')) {
        await res.body?.cancel().catch(() => undefined);
        const next = new URL(res.headers.get('location')!, url);
        // the secret headers belong to this host: a redirect elsewhere would hand them over
        if (next.host !== url.host || next.protocol !== url.protocol)
          throw new JunctionError(
            'url_redirect_refused',
            'forbidden',
            `Source "${config.name}": ${url.host} redirected the document of table "${table.name}" to ${next.host}; documents are only read from the host they were defined on.`,
            { details: { source: config.name, table: table.name, host: url.host, redirectHost: next.host } },
          );
        if (hop >= MAX_REDIRECTS)
          throw new JunctionError(
            'document_fetch_failed',
            'external',
            `Source "${config.name}": too many redirects fetching table "${table.name}".`,
            {
              details: { source: config.name, table: table.name },
            },
          );
        url = next;
        continue;
      }
      if (!res.ok || !res.body) {
        await res.body?.cancel().catch(() => undefined);
        throw new JunctionError(
          'document_fetch_failed',
          'external',
          `Source "${config.name}": ${url.host} answered ${res.status} ${res.statusText} for the document of table "${table.name}".`,
          { details: { source: config.name, table: table.name, host: url.host, status: res.status } },
        );
      }
      const body = res.body;
      return {
        chunks: withoutBom(body as unknown as AsyncIterable<Uint8Array>),
        close: () => {
          abort.abort();
          signal.removeEventListener('abort', onAbort);
        },
      };
    }
  } catch (err) {
    signal.removeEventListener('abort', onAbort);
    abort.abort();
    throw err;
  }
}
