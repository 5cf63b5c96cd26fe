import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import { defineConfig, type Plugin } from 'vite';
import react from '@vitejs/plugin-react';
import { fileURLToPath } from 'node:url';

// The API serves the built app from the same origin; in dev, Vite proxies /api to it so
// cookies and CSRF behave exactly as in production.
const apiTarget = process.env.JUNCTION_API_URL ?? 'http://127.0.0.1:8080';

/**
 * Writes a .br and a .gz copy beside every text asset of the build; the API serves them to
 * browsers that accept them (@fastify/static preCompressed). Compressing once at build time
 * lets brotli use its best level, which would be too slow per request.
 */
function precompress(): Plugin {
  let outDir = 'dist';
  return {
    name: 'junction-precompress',
    apply: 'build',
    configResolved(c) {
      outDir = path.resolve(c.root, c.build.outDir);
    },
    closeBundle() {
      const walk = (dir: string): string[] =>
        readdirSync(dir).flatMap((f) => {
          const p = path.join(dir, f);
          return statSync(p).isDirectory() ? walk(p) : [p];
        });
      for (const file of walk(outDir)) {
        if (!/\.(js|css|html|svg|json|map|ttf)$/.test(file)) continue;
        const data = readFileSync(file);
        if (data.length < 1024) continue;
        writeFileSync(`${file}.br`, brotliCompressSync(data, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }));
        writeFileSync(`${file}.gz`, gzipSync(data, { level: 9 }));
      }
    },
  };
}

export default defineConfig({
  plugins: [react(), precompress()],
  resolve: {
    // monaco-editor's exports map only .js files; its stylesheets (codicons) need a direct path
    alias: [
      {
        find: /^monaco-editor-css\/(.*)$/,
        replacement: fileURLToPath(new URL('../../node_modules/monaco-editor/esm/vs/', import.meta.url)) + '$1',
      },
    ],
  },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    // Monaco is one large lazy chunk by nature; the warning would only be noise.
    chunkSizeWarningLimit: 4096,
  },
  server: {
    port: 5173,
    proxy: { '/api': { target: apiTarget } },
  },
});
