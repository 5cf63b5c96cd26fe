import { lookup } from 'node:dns/promises';
import { lstat, readdir, readlink, realpath, stat } from 'node:fs/promises';
import net from 'node:net';
import path from 'node:path';
import { JunctionError } from '@junction/connectors';

/**
 * Where a source may point (JUNCTION_SOURCE_ALLOW): hosts, CIDRs and folders. Without the list,
 * any network host and only SQLite files under `<data dir>/sqlite/`. Whatever the list says, no
 * source file (nor PostgreSQL socket folder) may resolve into Junction's data directory outside
 * its sqlite/ folder: junction.db, secret.key, materialized.db, demo.json and the demo's cluster
 * live there, and a source reading them would hand every grant and credential to its readers.
 */

export const SOURCE_ALLOW_ENV = 'JUNCTION_SOURCE_ALLOW';

/** What of a source's settings decides where it connects. */
export interface SourceTarget {
  name: string;
  engine: string;
  host?: string | null;
  file?: string | null;
}

interface Rules {
  anyHost: boolean;
  anyFolder: boolean;
  names: string[];
  suffixes: string[];
  addresses: net.BlockList;
  hasAddresses: boolean;
  folders: string[];
  /** the list as configured (or described, for the default), quoted in refusals */
  entries: string[];
}

/** The connectors' default host when a network source names none (runtime/network-source.ts). */
const DEFAULT_HOST = '127.0.0.1';
/** symlink hops followed for a path that does not exist yet (as the kernel's ELOOP limit) */
const MAX_LINKS = 40;

function refusal(field: 'host' | 'file', rule: string, message: string, allowed: string[]): JunctionError {
  return new JunctionError('source_not_allowed', 'forbidden', message, {
    details: { field, rule, allowed },
  });
}

function isWithin(child: string, folder: string): boolean {
  const rel = path.relative(folder, child);
  return rel === '' || (rel !== '..' && !rel.startsWith(`..${path.sep}`) && !path.isAbsolute(rel));
}

/**
 * The path the OS would open, symlinks followed, for a file that may not exist yet: the deepest
 * existing ancestor is resolved and the rest appended. A dangling symlink is followed to its
 * target, since opening it would create that target.
 */
export async function resolveReal(p: string, hops = 0): Promise<string> {
  if (hops > MAX_LINKS) throw new Error(`too many symbolic links resolving ${p}`);
  let at = path.resolve(p);
  const rest: string[] = [];
  for (;;) {
    try {
      return path.join(await realpath(at), ...rest);
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code !== 'ENOENT' && code !== 'ENOTDIR') throw e;
    }
    const link = await lstat(at).catch(() => undefined);
    if (link?.isSymbolicLink()) {
      const target = path.resolve(path.dirname(at), await readlink(at));
      return resolveReal(path.join(target, ...rest), hops + 1);
    }
    const parent = path.dirname(at);
    if (parent === at) return path.join(at, ...rest);
    rest.unshift(path.basename(at));
    at = parent;
  }
}

function ipOf(host: string): { address: string; family: 'ipv4' | 'ipv6' } | undefined {
  let h = host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
  h = h.replace(/%.*$/, '');
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(h);
  if (mapped) h = mapped[1];
  const v = net.isIP(h);
  return v === 4 ? { address: h, family: 'ipv4' } : v === 6 ? { address: h, family: 'ipv6' } : undefined;
}

const HOST_NAME = /^(\*\.)?[a-z0-9_]([a-z0-9_-]*[a-z0-9_])?(\.[a-z0-9_]([a-z0-9_-]*[a-z0-9_])?)*$/;

function parseRules(spec: string | undefined, dataDir: string | undefined): Rules {
  const rules: Rules = {
    anyHost: false,
    anyFolder: false,
    names: [],
    suffixes: [],
    addresses: new net.BlockList(),
    hasAddresses: false,
    folders: [],
    entries: [],
  };
  const entries = (spec ?? '')
    .split(',')
    .map((e) => e.trim())
    .filter((e) => e !== '');
  if (entries.length === 0) {
    // the default: databases anywhere on the network, files only where the demo keeps its own
    rules.anyHost = true;
    if (dataDir) rules.folders.push(path.join(path.resolve(dataDir), 'sqlite'));
    // embedded (tests, tools) without a data directory: nothing of Junction's to protect
    else rules.anyFolder = true;
    rules.entries = ['*', ...(dataDir ? [rules.folders[0]] : ['any folder'])];
    return rules;
  }
  for (const entry of entries) {
    if (entry === '*') {
      rules.anyHost = true;
    } else if (path.isAbsolute(entry)) {
      rules.folders.push(path.resolve(entry));
    } else if (entry.includes('/')) {
      const [addr, bits, extra] = entry.split('/');
      const ip = ipOf(addr);
      const prefix = Number(bits);
      const max = ip?.family === 'ipv4' ? 32 : 128;
      if (!ip || extra !== undefined || !/^\d{1,3}$/.test(bits) || prefix > max)
        throw new Error(`${SOURCE_ALLOW_ENV}: "${entry}" is not a valid CIDR (e.g. 10.0.0.0/8 or fd00::/8)`);
      rules.addresses.addSubnet(ip.address, prefix, ip.family);
      rules.hasAddresses = true;
    } else if (ipOf(entry)) {
      const ip = ipOf(entry)!;
      rules.addresses.addAddress(ip.address, ip.family);
      rules.hasAddresses = true;
    } else {
      const name = entry.toLowerCase().replace(/\.$/, '');
      if (!HOST_NAME.test(name))
        throw new Error(
          `${SOURCE_ALLOW_ENV}: "${entry}" is neither a host name, an IP address, a CIDR, "*" nor an absolute folder`,
        );
      if (name.startsWith('*.')) rules.suffixes.push(name.slice(1));
      else rules.names.push(name);
    }
    rules.entries.push(entry);
  }
  return rules;
}

export class SourceAllow {
  readonly #rules: Rules;
  readonly #dataDir: string | undefined;

  private constructor(rules: Rules, dataDir: string | undefined) {
    this.#rules = rules;
    this.#dataDir = dataDir ? path.resolve(dataDir) : undefined;
  }

  /**
   * Reads JUNCTION_SOURCE_ALLOW. Throws on an entry it cannot read: a typo must stop the server
   * rather than silently allow less, or more, than meant.
   */
  static parse(spec: string | undefined, dataDir?: string): SourceAllow {
    return new SourceAllow(parseRules(spec, dataDir), dataDir);
  }

  /** The rules in force, as an admin would write them. */
  get entries(): readonly string[] {
    return this.#rules.entries;
  }

  /** Throws source_not_allowed (403) unless the source's host or file is allowed. Contacts no source. */
  async check(t: SourceTarget): Promise<void> {
    // file and document sources read under JUNCTION_FILE_ROOTS and JUNCTION_URL_HOSTS (lib/file-access.ts)
    if (t.engine === 'duckdb' || t.engine === 'documents') return;
    if (t.engine === 'sqlite') {
      const file = t.file ?? ':memory:';
      if (file !== ':memory:') await this.#checkPath(t.name, file, 'file');
      return;
    }
    await this.#checkHost(t.name, t.host ?? DEFAULT_HOST);
  }

  async #checkHost(source: string, host: string): Promise<void> {
    const r = this.#rules;
    // node-postgres takes a host starting with "/" as the folder of a Unix socket
    if (host.startsWith('/')) return this.#checkPath(source, host, 'host');
    const allowed = r.entries.filter((e) => !path.isAbsolute(e));
    const refuse = () =>
      refusal(
        'host',
        SOURCE_ALLOW_ENV,
        `Source "${source}" may not connect to host "${host}": it is not allowed by ${SOURCE_ALLOW_ENV} (${allowed.join(', ')}).`,
        allowed,
      );
    if (r.anyHost) return;
    const ip = ipOf(host);
    if (ip) {
      if (r.addresses.check(ip.address, ip.family)) return;
      throw refuse();
    }
    const name = host.toLowerCase().replace(/\.$/, '');
    if (r.names.includes(name) || r.suffixes.some((s) => name.endsWith(s) && name.length > s.length)) return;
    if (!r.hasAddresses) throw refuse();
    // A name is allowed when every address it has now is. Whether it resolves at all is not
    // told apart: the refusal reads the same for a name that does not exist.
    let addresses: { address: string; family: number }[];
    try {
      addresses = await lookup(name, { all: true, verbatim: true });
    } catch {
      throw refuse();
    }
    const ok =
      addresses.length > 0 &&
      addresses.every((a) => {
        const v = ipOf(a.address);
        return v !== undefined && r.addresses.check(v.address, v.family);
      });
    if (!ok) throw refuse();
  }

  async #checkPath(source: string, given: string, field: 'host' | 'file'): Promise<void> {
    const what = field === 'file' ? 'file' : 'socket folder';
    // ".." after a symlink means something else to the OS than to path.resolve
    if (given.split(/[\\/]/).includes('..'))
      throw refusal(
        field,
        'path',
        `Source "${source}" may not use ${what} "${given}": a path with ".." is not accepted.`,
        [],
      );
    let real: string;
    try {
      real = await resolveReal(given);
    } catch {
      throw refusal(
        field,
        'path',
        `Source "${source}" may not use ${what} "${given}": its path cannot be resolved.`,
        [],
      );
    }
    if (this.#dataDir && (await this.#inDataDir(real, field === 'file' ? given : undefined)))
      throw refusal(
        field,
        'data_directory',
        `Source "${source}" may not use ${what} "${given}": it is in Junction's own data directory, which only a source file under its sqlite/ folder may be.`,
        [],
      );
    const r = this.#rules;
    if (r.anyFolder) return;
    for (const folder of r.folders) {
      const realFolder = await resolveReal(folder).catch(() => undefined);
      if (realFolder && isWithin(real, realFolder) && real !== realFolder) return;
    }
    const folders = r.folders.length ? r.folders.join(', ') : 'none';
    throw refusal(
      field,
      SOURCE_ALLOW_ENV,
      `Source "${source}" may not use ${what} "${given}": it is not inside a folder allowed by ${SOURCE_ALLOW_ENV} (${folders}).`,
      [...r.folders],
    );
  }

  /** True for anything in the data directory but its sqlite/ folder, and for a hard link to one of its files. */
  async #inDataDir(real: string, file: string | undefined): Promise<boolean> {
    const dataDir = await resolveReal(this.#dataDir as string);
    // compared with the data directory's sqlite/ by name: were sqlite/ a symlink back to the data
    // directory, its realpath would let everything in
    if (
      isWithin(real, dataDir) &&
      !(isWithin(real, path.join(dataDir, 'sqlite')) && real !== path.join(dataDir, 'sqlite'))
    )
      return true;
    if (file === undefined) return false;
    const s = await stat(real).catch(() => undefined);
    if (!s?.isFile() || s.nlink < 2) return false;
    for (const entry of await readdir(dataDir).catch(() => [] as string[])) {
      const o = await stat(path.join(dataDir, entry)).catch(() => undefined);
      if (o && o.ino === s.ino && o.dev === s.dev) return true;
    }
    return false;
  }
}
