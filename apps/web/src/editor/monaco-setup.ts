// Loaded only with the editor chunk: Monaco is bundled from node_modules and never fetched
// from a CDN (loader.config hands @monaco-editor/react this instance).
import * as monaco from 'monaco-editor/editor';
import './monaco-contribs.js';
import EditorWorker from 'monaco-editor/editor/editor.worker?worker';
import 'monaco-editor/languages/definitions/sql/register';
import { loader } from '@monaco-editor/react';
import type { CatalogSource } from '../lib/catalog.js';
import { suggest, type SuggestionKind } from '../lib/sql-completion.js';

self.MonacoEnvironment = { getWorker: () => new EditorWorker() };
loader.config({ monaco });

export { monaco };

let catalog: readonly CatalogSource[] = [];
let provider: monaco.IDisposable | undefined;
let users = 0;

/** The completion provider reads the latest catalog; callers update it here. */
export function setCompletionCatalog(c: readonly CatalogSource[]): void {
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
    provideCompletionItems(model, position) {
      const before = model.getValueInRange({ startLineNumber: 1, startColumn: 1, endLineNumber: position.lineNumber, endColumn: position.column });
      const word = model.getWordUntilPosition(position);
      const range = { startLineNumber: position.lineNumber, endLineNumber: position.lineNumber, startColumn: word.startColumn, endColumn: word.endColumn };
      const suggestions = suggest(catalog, before, model.getValue()).map((s, i) => ({
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
