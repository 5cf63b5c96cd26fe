import type { SourceSemantics } from '../../src/contract/catalog.js';

/** What probing a MySQL or MariaDB server of this version reports (its defaults otherwise). */
export const mysqlSemantics = (serverVersion: string): SourceSemantics => ({
  serverVersion,
  defaultCollation: 'utf8mb4_general_ci',
  caseSensitive: false,
  accentSensitive: false,
  padSpace: true,
  timeZone: 'SYSTEM',
  maxBindParams: 65535,
  maxIdentifierLength: 64,
});
