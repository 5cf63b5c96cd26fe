import { describe, expect, it } from 'vitest';
import { DISK_FULL, diskFull, isDiskFull } from './disk-full.js';
import { JunctionError } from './errors.js';

const errno = (code: string) => Object.assign(new Error(`${code}: no space left on device, write`), { code });

describe('diskFull', () => {
  it('is one code for every disk, the disk in details', () => {
    const e = diskFull('materialized_store', 'the refresh was stopped', { cause: errno('ENOSPC'), details: { view: 'rep.v' } });
    expect(e.toJSON()).toEqual({
      code: DISK_FULL,
      kind: 'resources',
      message: "The disk holding Junction's materialized view store is full; the refresh was stopped. It works again once space is freed there.",
      details: { disk: 'materialized_store', view: 'rep.v' },
    });
  });
});

describe('isDiskFull', () => {
  it('knows errno, better-sqlite3 and Prisma driver-adapter errors, wrapped or not', () => {
    expect(isDiskFull(errno('ENOSPC'))).toBe(true);
    expect(isDiskFull(errno('EDQUOT'))).toBe(true);
    expect(isDiskFull(Object.assign(new Error('database or disk is full'), { code: 'SQLITE_FULL' }))).toBe(true);
    // the shape Prisma 7's adapter-better-sqlite3 gives a write on a full tmpfs (P2039, no cause)
    const prisma = Object.assign(new Error('Invalid `db.user.create()` invocation'), {
      code: 'P2039',
      clientVersion: '7',
      meta: { driverAdapterError: { name: 'DriverAdapterError', cause: { originalCode: 'SQLITE_FULL', kind: 'sqlite', extendedCode: 1 } } },
    });
    expect(isDiskFull(prisma)).toBe(true);
    expect(isDiskFull(new Error('outer', { cause: new Error('middle', { cause: errno('ENOSPC') }) }))).toBe(true);
    expect(isDiskFull(new JunctionError('internal_error', 'internal', 'Junction hit an internal error', { cause: errno('ENOSPC') }))).toBe(true);
    expect(isDiskFull(diskFull('spill', 'stopped'))).toBe(true);
  });

  it('leaves alone other errors, and typed errors that only wrap one (a source whose own disk is full)', () => {
    expect(isDiskFull(errno('EACCES'))).toBe(false);
    expect(isDiskFull(Object.assign(new Error('constraint'), { code: 'SQLITE_CONSTRAINT' }))).toBe(false);
    expect(isDiskFull(new JunctionError('source_error', 'external', 'could not extend file', { cause: { code: '53100' } }))).toBe(false);
    expect(isDiskFull(undefined)).toBe(false);
    expect(isDiskFull('ENOSPC')).toBe(false);
    const loop: { code: string; cause?: unknown } = { code: 'X' };
    loop.cause = loop;
    expect(isDiskFull(loop)).toBe(false);
  });
});
