import fs from 'node:fs';
import path from 'node:path';
import type { FileTableSpec, SourceConfig } from '../contract/connector.js';
import { JunctionError } from '../contract/errors.js';

export type FileFormat = 'csv' | 'parquet' | 'json';

/** A table's files after Junction expanded its globs: real paths, each checked under a file root. */
export interface ResolvedTable {
  readonly name: string;
  readonly format: FileFormat;
  readonly spec: FileTableSpec;
  /** real paths (symlinks followed), sorted */
  readonly files: readonly string[];
}

export interface ResolvedFiles {
  readonly tables: readonly ResolvedTable[];
  /** the real path of the .duckdb file to attach, if any */
  readonly database?: string;
  /** every path DuckDB may open once sandboxed: the table files and the database file */
  readonly allowedPaths: readonly string[];
}

const TABLE_NAME = /^[a-z0-9_]+$/;

const EXTENSIONS: Record<string, { format: FileFormat; csv?: FileTableSpec['csv']; json?: FileTableSpec['json'] }> = {
  '.csv': { format: 'csv' },
  '.tsv': { format: 'csv', csv: { delimiter: '\t' } },
  '.parquet': { format: 'parquet' },
  '.json': { format: 'json' },
  '.jsonl': { format: 'json', json: { format: 'newline_delimited' } },
  '.ndjson': { format: 'json', json: { format: 'newline_delimited' } },
};

export function fileMissingError(source: string, what: string, p: string): JunctionError {
  return new JunctionError('file_missing', 'user', `Source "${source}": ${what} does not exist: ${p}`, {
    details: { source, path: p },
  });
}

// where a path resolves outside the roots is not said: it would tell what exists out there
function outsideRootsError(source: string, p: string, real: string): JunctionError {
  const via = real === p ? '' : ' (through a symbolic link)';
  return new JunctionError(
    'file_outside_roots',
    'forbidden',
    `Source "${source}" may not read ${p}${via}: it is outside the folders an administrator allowed (JUNCTION_FILE_ROOTS).`,
    { details: { source, path: p } },
  );
}

function badPathError(source: string, p: string, why: string): JunctionError {
  return new JunctionError('file_path_invalid', 'user', `Source "${source}": the path "${p}" ${why}.`, {
    details: { source, path: p },
  });
}

/** `..` would let a relative path climb out of its root before the roots are even checked. */
function refuseParentSegments(source: string, p: string): void {
  if (p.split(/[\\/]/).includes('..')) throw badPathError(source, p, 'contains a ".." segment, which is not allowed');
  if (p.includes('\u0000')) throw badPathError(source, p, 'contains a NUL character');
}

function realpathOrMissing(source: string, what: string, p: string): string {
  try {
    return fs.realpathSync(p);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') throw fileMissingError(source, what, p);
    throw new JunctionError(
      'file_unreadable',
      'external',
      `Source "${source}" cannot read ${p}: ${(err as Error).message}`,
      {
        details: { source, path: p },
      },
    );
  }
}

function under(real: string, root: string): boolean {
  return real === root || real.startsWith(root.endsWith(path.sep) ? root : root + path.sep);
}

/** The administrator's roots, real paths; a root that does not exist allows nothing. */
export function realRoots(roots: readonly string[] | undefined): string[] {
  const out: string[] = [];
  for (const r of roots ?? []) {
    if (!path.isAbsolute(r)) continue;
    try {
      out.push(fs.realpathSync(r));
    } catch {
      // a configured root that is missing cannot hold anything
    }
  }
  return out;
}

/** The real path of `p`, refused unless it lies under one of `roots` (symlinks followed). */
export function checkedRealpath(source: string, roots: readonly string[], what: string, p: string): string {
  refuseParentSegments(source, p);
  if (roots.length === 0)
    throw new JunctionError(
      'file_roots_not_configured',
      'forbidden',
      `Source "${source}" reads files, but no file folders are allowed on this server. An administrator sets them with JUNCTION_FILE_ROOTS.`,
      { details: { source } },
    );
  // checked before the file is looked at, so nothing about paths outside the roots leaks
  const lexical = path.resolve(p);
  if (!roots.some((r) => under(lexical, r)) && !roots.some((r) => under(lexical, path.resolve(r)))) {
    const realParent = realParentOf(lexical);
    if (!realParent || !roots.some((r) => under(realParent, r))) throw outsideRootsError(source, p, p);
  }
  const real = realpathOrMissing(source, what, lexical);
  if (!roots.some((r) => under(real, r))) throw outsideRootsError(source, p, real);
  return real;
}

/** The real path of the nearest existing ancestor joined with the rest: roots themselves may sit behind a symlink (/tmp on macOS). */
function realParentOf(p: string): string | undefined {
  let dir = p;
  const rest: string[] = [];
  for (;;) {
    try {
      return path.join(fs.realpathSync(dir), ...rest);
    } catch {
      const parent = path.dirname(dir);
      if (parent === dir) return undefined;
      rest.unshift(path.basename(dir));
      dir = parent;
    }
  }
}

/** folder entries one table's pattern may look at: the walk runs on the server's one thread */
const MAX_GLOB_ENTRIES = 100_000;

function hasGlob(segment: string): boolean {
  return /[*?[]/.test(segment);
}

/** A glob segment as a RegExp: `*` and `?` never cross a `/`; `[abc]` is a class. */
function segmentRegExp(segment: string): RegExp {
  let re = '';
  for (let i = 0; i < segment.length; i++) {
    const c = segment[i];
    if (c === '*') re += '[^/]*';
    else if (c === '?') re += '[^/]';
    else if (c === '[') {
      const end = segment.indexOf(']', i + 1);
      if (end < 0) re += '\\[';
      else {
        const body = segment.slice(i + 1, end).replace(/\\/g, '\\\\');
        re += '[' + (body.startsWith('!') ? '^' + body.slice(1) : body) + ']';
        i = end;
      }
    } else re += c.replace(/[.+^${}()|\\]/g, '\\$&');
  }
  return new RegExp('^' + re + '$');
}

function entries(dir: string): fs.Dirent[] {
  try {
    return fs.readdirSync(dir, { withFileTypes: true });
  } catch {
    return [];
  }
}

function isFile(p: string): boolean {
  try {
    return fs.statSync(p).isFile();
  } catch {
    return false;
  }
}

/**
 * Expands `*`, `**` and `?` against the file system. Hidden entries match only a pattern that
 * names them; `**` does not descend into symlinked folders, so a link cannot make it loop or
 * wander (a linked file is still matched, and then checked by its real path like any other).
 */
export function expandGlob(pattern: string, roots?: readonly string[], source = ''): string[] {
  const abs = path.resolve(pattern);
  const parts = abs.split(path.sep).filter((s, i) => s !== '' || i === 0);
  const first = parts.findIndex((s, i) => i > 0 && hasGlob(s));
  if (first < 0) return [abs];
  const base = parts.slice(0, first).join(path.sep) || path.sep;
  const out = new Set<string>();
  let listed = 0;
  // a folder is listed only when it really lies under a root: a symlink to /usr inside a root
  // must not be walked (the walk is synchronous and would say what exists out there)
  const listable = (dir: string): fs.Dirent[] => {
    if (roots) {
      let real: string;
      try {
        real = fs.realpathSync(dir);
      } catch {
        return [];
      }
      if (!roots.some((r) => under(real, r))) return [];
    }
    const list = entries(dir);
    listed += list.length;
    if (listed > MAX_GLOB_ENTRIES)
      throw new JunctionError(
        'file_glob_too_large',
        'user',
        `Source "${source}": the pattern "${pattern}" looks at more than ${MAX_GLOB_ENTRIES} folder entries; name a narrower folder or pattern.`,
        { details: { source, path: pattern, limit: MAX_GLOB_ENTRIES } },
      );
    return list;
  };
  const walk = (dir: string, rest: readonly string[]): void => {
    if (rest.length === 0) {
      if (isFile(dir)) out.add(dir);
      return;
    }
    const [seg, ...tail] = rest;
    if (seg === '**') {
      walk(dir, tail);
      for (const e of listable(dir)) if (e.isDirectory() && !e.name.startsWith('.')) walk(path.join(dir, e.name), rest);
      return;
    }
    if (!hasGlob(seg)) {
      walk(path.join(dir, seg), tail);
      return;
    }
    const re = segmentRegExp(seg);
    for (const e of listable(dir)) {
      if (e.name.startsWith('.') && !seg.startsWith('.')) continue;
      if (re.test(e.name)) walk(path.join(dir, e.name), tail);
    }
  };
  walk(base, parts.slice(first));
  return [...out].sort();
}

export function formatOf(spec: FileTableSpec): FileFormat | undefined {
  if (spec.format) return spec.format;
  const ext = path.extname(spec.path.replace(/[*?]+$/, '')).toLowerCase();
  return EXTENSIONS[ext]?.format;
}

/** One table per CSV, TSV, Parquet, JSON or NDJSON file directly in the root, named after the file. */
function defaultTables(root: string): FileTableSpec[] {
  const specs: FileTableSpec[] = [];
  for (const e of entries(root).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
    const ext = path.extname(e.name).toLowerCase();
    const known = EXTENSIONS[ext];
    if (!known || e.name.startsWith('.') || !(e.isFile() || e.isSymbolicLink())) continue;
    const name = path
      .basename(e.name, path.extname(e.name))
      .toLowerCase()
      .replace(/[^a-z0-9_]+/g, '_');
    specs.push({
      name,
      path: e.name,
      format: known.format,
      ...(known.csv ? { csv: known.csv } : {}),
      ...(known.json ? { json: known.json } : {}),
    });
  }
  return specs;
}

/**
 * Resolves the source's files: the root, every table's glob, the database file. Every path
 * that will be read is a real path under a file root; anything else is refused here, before
 * DuckDB sees it.
 */
export function resolveFiles(config: SourceConfig): ResolvedFiles {
  const source = config.name;
  const roots = realRoots(config.options?.fileRoots);
  const opts = config.options?.files;
  let root: string | undefined;
  if (opts?.root !== undefined) {
    if (!path.isAbsolute(opts.root))
      throw badPathError(source, opts.root, 'must be absolute (the folder relative table paths resolve in)');
    root = checkedRealpath(source, roots, 'the folder', opts.root);
    if (!fs.statSync(root).isDirectory()) throw badPathError(source, opts.root, 'is not a folder');
  }
  const specs = opts?.tables ?? (root ? defaultTables(root) : []);
  const seen = new Set<string>();
  const tables: ResolvedTable[] = [];
  for (const spec of specs) {
    if (!TABLE_NAME.test(spec.name))
      throw new JunctionError(
        'file_table_name_invalid',
        'user',
        `Source "${source}": table name "${spec.name}" must consist of a-z, 0-9 and _ only.`,
        {
          details: { source, table: spec.name },
        },
      );
    if (seen.has(spec.name))
      throw new JunctionError(
        'file_table_duplicate',
        'user',
        `Source "${source}" defines table "${spec.name}" twice.`,
        {
          details: { source, table: spec.name },
        },
      );
    seen.add(spec.name);
    refuseParentSegments(source, spec.path);
    const format = formatOf(spec);
    if (!format)
      throw new JunctionError(
        'file_format_unknown',
        'user',
        `Source "${source}": the format of table "${spec.name}" (${spec.path}) is not known from its extension; set format to csv, parquet or json.`,
        { details: { source, table: spec.name } },
      );
    let pattern: string;
    if (path.isAbsolute(spec.path)) pattern = spec.path;
    else if (root) pattern = path.join(root, spec.path);
    else throw badPathError(source, spec.path, 'is relative, but the source has no root folder');
    const matched = expandGlob(pattern, roots, source);
    if (matched.length === 0 || (matched.length === 1 && !hasGlob(spec.path) && !fs.existsSync(matched[0])))
      throw new JunctionError(
        'file_missing',
        'user',
        `Source "${source}": no file matches "${spec.path}" (table "${spec.name}").`,
        {
          details: { source, table: spec.name, path: spec.path },
        },
      );
    const files = [
      ...new Set(matched.map((m) => checkedRealpath(source, roots, `a file of table "${spec.name}"`, m))),
    ].sort();
    for (const f of files) {
      if (!isFile(f)) throw badPathError(source, spec.path, 'is not a file');
      // DuckDB's readers expand these characters again, in paths Junction already resolved
      if (/[*?[\]{}]/.test(f))
        throw badPathError(source, spec.path, `matches a file whose path holds a wildcard character (${f}); rename it`);
    }
    tables.push({ name: spec.name, format, spec, files });
  }
  const dbPath =
    config.file === undefined
      ? undefined
      : path.isAbsolute(config.file) || !root
        ? config.file
        : path.join(root, config.file);
  const database = dbPath !== undefined ? checkedRealpath(source, roots, 'the database file', dbPath) : undefined;
  if (database && /[*?[\]{}]/.test(database))
    throw badPathError(source, config.file!, 'resolves to a path holding a wildcard character; rename it');
  return {
    tables,
    ...(database ? { database } : {}),
    // a read-only ATTACH also looks for the file's write-ahead log beside it
    allowedPaths: [...new Set([...tables.flatMap((t) => t.files), ...(database ? [database, `${database}.wal`] : [])])],
  };
}
