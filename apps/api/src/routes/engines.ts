import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { errors } from '../lib/schemas.js';

const Engines = Type.Object({
  default: Type.Union([Type.Literal('local'), Type.Literal('auto')], {
    description: 'where a query that names no engine runs (JUNCTION_TRINO_DEFAULT_ENGINE)',
  }),
  trino: Type.Union(
    [
      Type.Null(),
      Type.Object({
        available: Type.Boolean({ description: 'false while Trino cannot be reached (message says why)' }),
        message: Type.Union([Type.String(), Type.Null()]),
        autoRowsThreshold: Type.Integer({ description: '`auto` runs a query on Trino when the rows it would fetch locally are estimated past this and its local plan past its memory budget' }),
        sources: Type.Array(
          Type.Object({
            source: Type.String(),
            local: Type.Boolean({ description: 'true: queries reading it keep it in Junction (reason says why)' }),
            catalog: Type.Union([Type.String(), Type.Null()]),
            reason: Type.Union([Type.String(), Type.Null()]),
          }),
          { description: 'the sources the caller may read, each with the Trino catalog that reads it' },
        ),
      }),
    ],
    { description: 'null when no Trino is configured (JUNCTION_TRINO_URL)' },
  ),
});

/** Where queries may run: Junction itself, and Trino when one is configured. Readable by every signed-in user. */
export default async function engineRoutes(app: FastifyInstance): Promise<void> {
  app.get(
    '/engines',
    {
      schema: {
        tags: ['query'],
        summary: 'The engines a query may run on (engine: local | trino | auto) and how the sources map to Trino',
        response: { 200: Engines, ...errors() },
      },
    },
    async (request) => {
      const trino = app.trino;
      if (!trino) return { default: 'local' as const, trino: null };
      return {
        default: trino.settings.defaultEngine ?? ('local' as const),
        trino: trino.info(await app.junction.accessPolicy(request.principal!)),
      };
    },
  );
}
