import { JunctionError } from './errors.js';

/**
 * The disks Junction writes to. Users see one code, `disk_full`, whichever filled up; which one
 * is in `details.disk`, so an operator knows what to clean or grow without reading the log. The
 * result cache has no entry: a result it cannot write is answered and simply not stored.
 */
export type JunctionDisk = 'spill' | 'materialized_store' | 'metadata';

export const DISK_FULL = 'disk_full';

const DISK_LABEL: Record<JunctionDisk, string> = {
  spill: "Junction's spill files",
  materialized_store: "Junction's materialized view store",
  metadata: "Junction's metadata database",
};

/** An out-of-space error: the machine's limit, not a fault of the query or of Junction. */
export function diskFull(disk: JunctionDisk, what: string, options: { cause?: unknown; details?: Record<string, unknown> } = {}): JunctionError {
  return new JunctionError(
    DISK_FULL,
    'resources',
    `The disk holding ${DISK_LABEL[disk]} is full; ${what}. It works again once space is freed there.`,
    { cause: options.cause, details: { disk, ...options.details } },
  );
}

/** errno codes and driver codes that mean "no space left" (PostgreSQL's disk_full is SQLSTATE 53100) */
const OUT_OF_SPACE = new Set(['ENOSPC', 'EDQUOT', 'SQLITE_FULL', '53100']);

/**
 * Whether an error, or anything it wraps, is a disk running out of space: Node's errno errors,
 * better-sqlite3's SqliteError (code SQLITE_FULL), and Prisma's driver-adapter errors, which
 * carry the driver's code in `meta.driverAdapterError.cause.originalCode` rather than a cause.
 * A JunctionError other than an internal one is already classified and is not looked into: a
 * source reporting its own full disk is that source's trouble, not a Junction disk.
 */
export function isDiskFull(e: unknown): boolean {
  const seen = new Set<unknown>();
  let cur: unknown = e;
  while (typeof cur === 'object' && cur !== null && !seen.has(cur)) {
    seen.add(cur);
    if (cur instanceof JunctionError && cur.kind !== 'internal') return cur.code === DISK_FULL;
    const o = cur as { code?: unknown; originalCode?: unknown; cause?: unknown; meta?: { driverAdapterError?: unknown } };
    if (OUT_OF_SPACE.has(String(o.code)) || OUT_OF_SPACE.has(String(o.originalCode))) return true;
    cur = o.meta?.driverAdapterError ?? o.cause;
  }
  return false;
}
