import { describe, expect, it } from 'vitest';
import { JunctionError, diskFull } from '@junction/connectors';
import { toErrorBody } from './errors.js';

const enospc = () => Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });

describe('toErrorBody: full disks', () => {
  it('answers 507 disk_full, with the disk, for an error that says which disk', () => {
    expect(toErrorBody(diskFull('spill', 'the query was stopped', { cause: enospc() }))).toEqual({
      status: 507,
      body: {
        code: 'disk_full',
        kind: 'resources',
        message: "The disk holding Junction's spill files is full; the query was stopped. It works again once space is freed there.",
        details: { disk: 'spill' },
      },
    });
  });

  it('a metadata write Prisma failed with SQLITE_FULL is disk_full on the metadata disk, not a 500', () => {
    const prisma = Object.assign(new Error('Invalid `db.savedQuery.create()` invocation'), {
      code: 'P2039',
      clientVersion: '7',
      meta: { driverAdapterError: { name: 'DriverAdapterError', cause: { originalCode: 'SQLITE_FULL', kind: 'sqlite' } } },
    });
    const { status, body } = toErrorBody(prisma);
    expect(status).toBe(507);
    expect(body).toMatchObject({ code: 'disk_full', kind: 'resources', details: { disk: 'metadata' } });
  });

  it('an unrecognised ENOSPC, bare or inside an internal error, is disk_full rather than internal', () => {
    for (const e of [enospc(), new JunctionError('internal_error', 'internal', 'Junction hit an internal error.', { cause: enospc() })]) {
      const { status, body } = toErrorBody(e);
      expect(status).toBe(507);
      expect(body).toEqual({
        code: 'disk_full',
        kind: 'resources',
        message: 'A disk Junction writes to is full; the request was stopped. It works again once space is freed there.',
      });
    }
  });

  it('a typed error keeps its code whatever it wraps', () => {
    const e = new JunctionError('source_error', 'external', 'could not extend file', { cause: { code: '53100' } });
    expect(toErrorBody(e)).toMatchObject({ status: 502, body: { code: 'source_error' } });
  });
});
