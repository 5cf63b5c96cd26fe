// Loaded only with the editor chunk: Monaco is bundled from node_modules and never fetched
// from a CDN (loader.config hands @monaco-editor/react this instance).
import * as monaco from 'monaco-editor/editor';
import './monaco-contribs.js';
import EditorWorker from 'monaco-editor/editor/editor.worker?worker';
import 'monaco-editor/languages/definitions/sql/register';
import { loader } from '@monaco-editor/react';
import type { CatalogSource } from '../lib/catalog.js';
import { suggest, tablesNeeded, type SuggestionKind } from '../lib/sql-completion.js';

self.MonacoEnvironment = { getWorker: () => new EditorWorker() };
loader.config({ monaco });

export { monaco };

/** Where completion reads the catalog and how it asks for columns it has not seen yet. */
export interface CompletionCatalog {
  current(): readonly CatalogSource[];
  ensureColumns(tables: readonly { source: string; schema: string; table: string }[]): Promise<void>;
}

let catalog: CompletionCatalog = { current: () => [], ensureColumns: async () => undefined };
let provider: monaco.IDisposable | undefined;
let users = 0;

export function setCompletionCatalog(c: CompletionCatalog): void {
  catalog = c;
}

const KIND: Record<SuggestionKind, monaco.languages.CompletionItemKind> = {
  source: monaco.languages.CompletionItemKind.Module,
  schema: monaco.languages.CompletionItemKind.Folder,
  table: monaco.languages.CompletionItemKind.Class,
  column: monaco.languages.CompletionItemKind.Field,
  keyword: monaco.languages.CompletionItemKind.Keyword,
};

/** One provider for the page however many editors mount; the last one out disposes it. */
export function acquireSqlCompletion(): () => void {
  users++;
  provider ??= monaco.languages.registerCompletionItemProvider('sql', {
    triggerCharacters: ['.'],
    async provideCompletionItems(model, position) {
      const before = model.getValueInRange({
        startLineNumber: 1,
        startColumn: 1,
        endLineNumber: position.lineNumber,
        endColumn: position.column,
      });
      const all = model.getValue();
      const word = model.getWordUntilPosition(position);
      const range = {
        startLineNumber: position.lineNumber,
        endLineNumber: position.lineNumber,
        startColumn: word.startColumn,
        endColumn: word.endColumn,
      };
      const needed = tablesNeeded(catalog.current(), before, all);
      if (needed.length > 0) await catalog.ensureColumns(needed);
      const suggestions = suggest(catalog.current(), before, all).map((s, i) => ({
        label: s.label,
        kind: KIND[s.kind],
        detail: s.detail,
        insertText: s.label,
        range,
        // catalog names first, keywords last
        sortText: `${s.kind === 'keyword' ? 1 : 0}${String(i).padStart(5, '0')}`,
      }));
      return { suggestions };
    },
  });
  return () => {
    users--;
    if (users === 0) {
      provider?.dispose();
      provider = undefined;
    }
  };
}
