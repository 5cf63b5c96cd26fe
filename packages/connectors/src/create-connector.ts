import type { Connector, SourceConfig } from './contract/connector.js';
import { JunctionError } from './contract/errors.js';
import { MysqlConnector } from './mysql/connector.js';
import { PostgresConnector } from './postgres/connector.js';
import { SqliteConnector } from './sqlite/connector.js';
import { SqlServerConnector } from './sqlserver/connector.js';

/** One connector per registered source; each owns its own pool. */
export function createConnector(config: SourceConfig): Connector {
  switch (config.engine) {
    case 'postgresql':
      return new PostgresConnector(config);
    case 'mysql':
      return new MysqlConnector(config);
    case 'sqlite':
      return new SqliteConnector(config);
    case 'sqlserver':
      return new SqlServerConnector(config);
    default:
      throw new JunctionError(
        'engine_unsupported',
        'unsupported',
        `Engine "${String((config as { engine: unknown }).engine)}" is not supported (source "${config.name}").`,
      );
  }
}
