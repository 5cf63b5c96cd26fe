import fp from 'fastify-plugin';
import { SecretBox } from '../lib/secrets.js';

declare module 'fastify' {
  interface FastifyInstance {
    secrets: SecretBox;
  }
}

export default fp<{ secretKey: Buffer }>(
  async (app, opts) => {
    app.decorate('secrets', new SecretBox(opts.secretKey));
  },
  { name: 'crypto' },
);
