import { realpathSync } from 'node:fs';
import path from 'node:path';
import { JunctionError, type SourceConfig } from '@junction/connectors';
import { resolveReal } from './source-allow.js';

/**
 * Where file and document sources may read (JUNCTION_FILE_ROOTS, JUNCTION_URL_HOSTS). The
 * connectors enforce the same rules on every file they open (realpath under a root, host in the
 * list); here the API refuses a source's settings before anything is opened, and hands every
 * duckdb and documents source the server's lists, whatever its stored options say.
 */

export const FILE_ROOTS_ENV = 'JUNCTION_FILE_ROOTS';
export const URL_HOSTS_ENV = 'JUNCTION_URL_HOSTS';

/** The engines whose sources read files and URLs under these rules. */
export const FILE_ENGINES: ReadonlySet<string> = new Set(['duckdb', 'documents']);

/** What of a source's settings names files and URLs. */
export interface FileTarget {
  name: string;
  engine: string;
  file?: string | null;
  options?: unknown;
}

const GLOB = /[*?[\]{}]/;

function isWithin(child: string, folder: string): boolean {
  const rel = path.relative(folder, child);
  return rel === '' || (rel !== '..' && !rel.startsWith(`..${path.sep}`) && !path.isAbsolute(rel));
}

function realOrSelf(p: string): string {
  try {
    return realpathSync(p);
  } catch {
    return p;
  }
}

function outside(source: string, given: string, roots: readonly string[], why?: string): JunctionError {
  const list = roots.length ? roots.join(', ') : 'none';
  return new JunctionError(
    'file_outside_roots',
    'user',
    `Source "${source}" may not read "${given}": ${why ?? `it is not inside a folder allowed by ${FILE_ROOTS_ENV} (${list})`}.`,
    { details: { source, path: given, allowed: [...roots] } },
  );
}

/** The folder part of a path before its first glob segment: what a pattern can never leave. */
function staticPrefix(p: string): string {
  const parts = p.split(/[\\/]/);
  const i = parts.findIndex((s) => GLOB.test(s));
  if (i < 0) return p;
  const head = parts.slice(0, i).join('/');
  return head === '' ? (p.startsWith('/') ? '/' : '.') : head;
}

/** host (any port) or host:port, lower-cased; IPv6 in brackets. */
function parseHost(entry: string): { host: string; port?: string } {
  const e = entry.trim().toLowerCase();
  const v6 = /^\[([0-9a-f:.]+)\](?::(\d{1,5}))?$/.exec(e);
  if (v6) return { host: `[${v6[1]}]`, ...(v6[2] ? { port: v6[2] } : {}) };
  const m = /^([a-z0-9_]([a-z0-9_.-]*[a-z0-9_])?)(?::(\d{1,5}))?$/.exec(e);
  if (!m)
    throw new Error(
      `${URL_HOSTS_ENV}: "${entry}" is neither a host name nor host:port (e.g. data.example.com or 127.0.0.1:8080)`,
    );
  return { host: m[1].replace(/\.$/, ''), ...(m[3] ? { port: m[3] } : {}) };
}

export class FileAccess {
  private constructor(
    /** absolute folders, as configured */
    readonly roots: readonly string[],
    /** as configured: host or host:port */
    readonly urlHosts: readonly string[],
    private readonly hosts: readonly { host: string; port?: string }[],
  ) {}

  /**
   * Reads JUNCTION_FILE_ROOTS (path.delimiter-separated absolute folders; default `<data dir>/files`)
   * and JUNCTION_URL_HOSTS (comma-separated; default none). Throws on an entry it cannot read, and
   * on a root that would expose Junction's data directory (junction.db, secret.key) to a source's readers.
   */
  static parse(rootsSpec: string | undefined, hostsSpec: string | undefined, dataDir?: string): FileAccess {
    const given = (rootsSpec ?? '')
      .split(path.delimiter)
      .map((e) => e.trim())
      .filter((e) => e !== '');
    const data = dataDir ? realOrSelf(path.resolve(dataDir)) : undefined;
    const roots = given.length ? given : dataDir ? [path.join(path.resolve(dataDir), 'files')] : [];
    for (const root of roots) {
      if (!path.isAbsolute(root)) throw new Error(`${FILE_ROOTS_ENV}: "${root}" is not an absolute folder`);
      if (!data) continue;
      const real = realOrSelf(path.resolve(root));
      if (isWithin(data, real))
        throw new Error(
          `${FILE_ROOTS_ENV}: "${root}" contains Junction's data directory (${data}), whose junction.db and secret.key no source may read; name a folder beside it`,
        );
      if (isWithin(real, data) && !isWithin(real, path.join(data, 'files')))
        throw new Error(
          `${FILE_ROOTS_ENV}: "${root}" is inside Junction's data directory (${data}), where only its files/ folder may hold source files`,
        );
    }
    const urlHosts = (hostsSpec ?? '')
      .split(',')
      .map((e) => e.trim())
      .filter((e) => e !== '');
    return new FileAccess(
      roots.map((r) => path.resolve(r)),
      urlHosts,
      urlHosts.map(parseHost),
    );
  }

  /**
   * The config a connector gets: a duckdb or documents source reads under the server's lists,
   * never under any fileRoots or urlHosts a stored or submitted payload carried.
   */
  apply(config: SourceConfig): SourceConfig {
    if (!FILE_ENGINES.has(config.engine)) return config;
    return { ...config, options: { ...config.options, fileRoots: [...this.roots], urlHosts: [...this.urlHosts] } };
  }

  /**
   * Refuses a source's root, paths and file outside the roots (file_outside_roots) and URLs on a
   * host not listed (url_host_not_allowed), before anything is opened. Globs are checked by the
   * folder they start in; the connector checks every file they match.
   */
  async check(t: FileTarget): Promise<void> {
    if (!FILE_ENGINES.has(t.engine)) return;
    const options = (typeof t.options === 'string' ? JSON.parse(t.options || '{}') : (t.options ?? {})) as {
      files?: { root?: string; tables?: { path?: string }[] };
      documents?: { root?: string; tables?: { from?: { path?: string; url?: string } }[] };
    };
    const spec = t.engine === 'duckdb' ? options.files : options.documents;
    const root = spec?.root;
    if (root !== undefined) {
      if (!path.isAbsolute(root)) throw outside(t.name, root, this.roots, 'a root folder must be an absolute path');
      await this.#checkPath(t.name, root);
    }
    const paths: string[] = [];
    if (t.engine === 'duckdb') {
      if (t.file) paths.push(t.file);
      for (const table of options.files?.tables ?? []) if (table.path) paths.push(table.path);
    } else {
      for (const table of options.documents?.tables ?? []) {
        if (table.from?.path !== undefined) paths.push(table.from.path);
        if (table.from?.url !== undefined) this.checkUrl(t.name, table.from.url);
      }
    }
    for (const p of paths) {
      if (!path.isAbsolute(p) && root === undefined)
        throw outside(t.name, p, this.roots, 'a relative path needs a root folder to resolve in');
      await this.#checkPath(t.name, path.isAbsolute(p) ? p : path.join(root as string, p), p);
    }
  }

  /** Throws url_host_not_allowed unless the URL is http(s) on a listed host. */
  checkUrl(source: string, url: string): void {
    let u: URL;
    try {
      u = new URL(url);
    } catch {
      throw new JunctionError('url_invalid', 'user', `Source "${source}": "${url}" is not a URL.`, {
        details: { source, url },
      });
    }
    if (u.protocol !== 'http:' && u.protocol !== 'https:')
      throw new JunctionError('url_invalid', 'user', `Source "${source}": "${url}" is not an http or https URL.`, {
        details: { source, url },
      });
    // stored in the options, which admins read back: credentials belong in the secret headers
    if (u.username !== '' || u.password !== '')
      throw new JunctionError(
        'url_invalid',
        'user',
        `Source "${source}": a URL may not carry a user or password; put credentials in the secret headers.`,
        { details: { source } },
      );
    const host = u.hostname.toLowerCase();
    const port = u.port || (u.protocol === 'https:' ? '443' : '80');
    if (this.hosts.some((h) => h.host === host && (h.port === undefined || h.port === port))) return;
    const list = this.urlHosts.length ? this.urlHosts.join(', ') : 'none';
    throw new JunctionError(
      'url_host_not_allowed',
      'user',
      `Source "${source}" may not fetch "${url}": host ${u.host} is not allowed by ${URL_HOSTS_ENV} (${list}).`,
      { details: { source, url, allowed: [...this.urlHosts] } },
    );
  }

  async #checkPath(source: string, full: string, given = full): Promise<void> {
    // ".." after a symlink means something else to the OS than to path.resolve
    if (given.split(/[\\/]/).includes('..') || full.split(/[\\/]/).includes('..'))
      throw outside(source, given, this.roots, 'a path with ".." is not accepted');
    let real: string;
    try {
      real = await resolveReal(staticPrefix(full));
    } catch {
      throw outside(source, given, this.roots, 'its path cannot be resolved');
    }
    for (const root of this.roots) {
      const realRoot = await resolveReal(root).catch(() => undefined);
      if (realRoot && isWithin(real, realRoot)) return;
    }
    throw outside(source, given, this.roots);
  }
}
