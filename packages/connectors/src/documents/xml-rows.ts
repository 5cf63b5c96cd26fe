import { TextDecoder } from 'node:util';
import { SaxesParser, type SaxesTagNS } from 'saxes';
import { isJunctionError, JunctionError } from '../contract/errors.js';
import {
  attrKey,
  matchesName,
  matchesRowPath,
  type OpenElement,
  type QName,
  type RowStep,
  type XmlColumnPath,
} from './xml-path.js';

/**
 * Rows of an XML document, read with a SAX parser in one pass: a document is never held
 * whole, only the open elements above the current row (with their attributes, for row
 * predicates and '../@x' columns) and the row being read.
 *
 * Each row is the raw text of its columns (null where the path matched nothing): the first
 * matching element or attribute in document order when the path repeats, an element's whole
 * text (mixed content concatenated, CDATA and entities resolved) as its value. A row element
 * nested inside another row is part of that row, not a row of its own.
 */

export type RawRow = (string | null)[];

/**
 * What one document may ask of the reader. saxes holds a text node, attribute value, comment,
 * CDATA section or tag whole until it ends, even where no column reads it: one huge node would
 * otherwise take the process's memory. Deep nesting costs the row-path match at every level.
 * Mutable so tests can lower them.
 */
export const xmlLimits = {
  /** characters between two parser events: the most the parser buffers for one node */
  maxValueChars: 64 * 1024 * 1024,
  /** nested elements */
  maxDepth: 1000,
};

function where(documentName: string, table: string | undefined): string {
  return table === undefined ? documentName : `${documentName} (table "${table}")`;
}

interface Node {
  readonly children: { readonly name: QName; readonly node: Node }[];
  /** columns reading this element's whole text */
  readonly text: number[];
  /** columns reading only this element's own text nodes */
  readonly ownText: number[];
  readonly attrs: { readonly attr: QName; readonly col: number }[];
  /** [this node], made once: most elements match one node */
  readonly alone: readonly Node[];
}

const newNode = (): Node => {
  const n: Node = { children: [], text: [], ownText: [], attrs: [], alone: [] };
  (n.alone as Node[]).push(n);
  return n;
};

function child(node: Node, name: QName): Node {
  const found = node.children.find((c) => c.name.local === name.local && c.name.uri === name.uri);
  if (found) return found.node;
  const n = newNode();
  node.children.push({ name, node: n });
  return n;
}

interface Frame {
  readonly nodes: readonly Node[];
  /** columns whose text collection started at this element */
  readonly started: number[];
  readonly own: number[];
}

const NOTHING: readonly Node[] = [];
const NONE: number[] = [];
/** the frame of an element no column reads: shared, frames are never changed once pushed */
const IGNORED: Frame = { nodes: NOTHING, started: NONE, own: NONE };
const UNSET = 0;
const COLLECTING = 1;
const DONE = 2;

export class XmlRowReader {
  private readonly root: Node = newNode();
  private readonly ancestorCols: { readonly col: number; readonly up: number; readonly key: string }[] = [];
  private readonly parser: SaxesParser<{ xmlns: true }>;
  private readonly stack: OpenElement[] = [];
  private frames: Frame[] = [];
  private values: RawRow = [];
  private state: Uint8Array;
  private acc: string[] = [];
  /** columns collecting an element's whole text right now */
  private active: number[] = [];
  private readonly lastLocal: string | undefined;
  private depth = 0;
  /** parser position at the last event: what lies after it is what saxes is holding */
  private mark = 0;
  /** characters written; saxes's own position runs a chunk ahead between writes */
  private written = 0;
  rows: RawRow[] = [];

  constructor(
    private readonly steps: readonly RowStep[],
    private readonly columns: readonly XmlColumnPath[],
    private readonly fileName: string,
    private readonly table?: string,
  ) {
    const last = steps[steps.length - 1].name;
    this.lastLocal = last === '*' ? undefined : last.local;
    columns.forEach((c, col) => {
      if (c.kind === 'ancestorAttr') {
        this.ancestorCols.push({ col, up: c.up, key: attrKey(c.attr.uri ?? '', c.attr.local) });
        return;
      }
      let node = this.root;
      for (const e of c.elements) node = child(node, e);
      if (c.kind === 'text') node.text.push(col);
      else if (c.kind === 'ownText') node.ownText.push(col);
      else node.attrs.push({ attr: c.attr, col });
    });
    this.state = new Uint8Array(columns.length);
    this.parser = new SaxesParser({ xmlns: true, fileName });
    this.parser.on('opentag', (tag) => this.open(tag));
    this.parser.on('closetag', () => this.close());
    this.parser.on('text', (text) => this.text(text));
    this.parser.on('cdata', (text) => this.text(text));
    // No handlers for comments, PIs or the DOCTYPE to mark their end: each handler set slows
    // saxes throughout (about 3× with four), and one of them only adds its size to what follows
    // until the next tag or text.
  }

  /** Parses a piece of the document; finished rows collect in `rows` (the caller takes them). */
  write(chunk: string): void {
    this.parser.write(chunk);
    this.written += chunk.length;
    // Checked per chunk, so saxes holds at most the limit and one chunk.
    if (this.written - this.mark > xmlLimits.maxValueChars) {
      const mib = xmlLimits.maxValueChars / (1024 * 1024);
      throw new JunctionError(
        'document_value_too_large',
        'user',
        `The XML document ${where(this.fileName, this.table)} cannot be read: a text node, attribute, comment or CDATA section is longer than ${mib} MiB, the most one value may hold.`,
        { details: { document: this.fileName, table: this.table, limit: xmlLimits.maxValueChars } },
      );
    }
  }

  end(): void {
    this.parser.close();
  }

  private open(tag: SaxesTagNS): void {
    this.mark = this.parser.position;
    if (++this.depth > xmlLimits.maxDepth)
      throw new JunctionError(
        'document_too_deep',
        'user',
        `The XML document ${where(this.fileName, this.table)} cannot be read: it nests elements more than ${xmlLimits.maxDepth} levels deep.`,
        { details: { document: this.fileName, table: this.table, limit: xmlLimits.maxDepth } },
      );
    if (this.frames.length > 0) {
      this.openInRow(tag);
      return;
    }
    const el: OpenElement = { uri: tag.uri, local: tag.local, attrs: attributes(tag) };
    this.stack.push(el);
    if (this.lastLocal !== undefined && tag.local !== this.lastLocal) return;
    if (!matchesRowPath(this.steps, this.stack)) return;
    this.values = new Array(this.columns.length).fill(null);
    this.state.fill(UNSET);
    this.active = [];
    const n = this.stack.length - 1;
    for (const a of this.ancestorCols) {
      const anc = this.stack[n - a.up];
      const v = anc?.attrs.get(a.key);
      if (v !== undefined) {
        this.values[a.col] = v;
        this.state[a.col] = DONE;
      }
    }
    this.enter(this.root.alone, tag, el.attrs);
  }

  private openInRow(tag: SaxesTagNS): void {
    const top = this.frames[this.frames.length - 1];
    if (top.nodes.length === 0) {
      this.frames.push(IGNORED);
      return;
    }
    let first: Node | undefined;
    let nodes: Node[] | undefined;
    for (const node of top.nodes)
      for (const c of node.children) {
        if (!matchesName(c.name, tag.uri, tag.local)) continue;
        if (!first) first = c.node;
        else (nodes ??= [first]).push(c.node);
      }
    if (!first) {
      this.frames.push(IGNORED);
      return;
    }
    this.enter(nodes ?? first.alone, tag, undefined);
  }

  private enter(nodes: readonly Node[], tag: SaxesTagNS, attrs: ReadonlyMap<string, string> | undefined): void {
    let started = NONE;
    let own = NONE;
    for (const node of nodes) {
      for (const a of node.attrs) {
        if (this.state[a.col] !== UNSET) continue;
        const map = attrs ?? attributes(tag);
        const v = map.get(attrKey(a.attr.uri ?? '', a.attr.local));
        if (v !== undefined) {
          this.values[a.col] = v;
          this.state[a.col] = DONE;
        }
      }
      for (const col of node.text) {
        if (this.state[col] !== UNSET) continue;
        this.state[col] = COLLECTING;
        this.acc[col] = '';
        if (started === NONE) started = [];
        started.push(col);
        this.active.push(col);
      }
      for (const col of node.ownText) {
        if (this.state[col] !== UNSET) continue;
        this.state[col] = COLLECTING;
        this.acc[col] = '';
        if (own === NONE) own = [];
        own.push(col);
      }
    }
    this.frames.push({ nodes, started, own });
  }

  private text(text: string): void {
    this.mark = this.parser.position;
    if (this.frames.length === 0) return;
    const active = this.active;
    for (let i = 0; i < active.length; i++) this.acc[active[i]] += text;
    const own = this.frames[this.frames.length - 1].own;
    for (let i = 0; i < own.length; i++) this.acc[own[i]] += text;
  }

  private close(): void {
    this.mark = this.parser.position;
    this.depth--;
    const frame = this.frames.pop();
    if (!frame) {
      this.stack.pop();
      return;
    }
    if (frame.started.length > 0) {
      for (const col of frame.started) {
        this.values[col] = this.acc[col];
        this.state[col] = DONE;
      }
      this.active = this.active.filter((c) => !frame.started.includes(c));
    }
    for (const col of frame.own) {
      this.values[col] = this.acc[col];
      this.state[col] = DONE;
    }
    if (this.frames.length === 0) {
      this.stack.pop();
      this.rows.push(this.values);
    }
  }
}

function attributes(tag: SaxesTagNS): Map<string, string> {
  const map = new Map<string, string>();
  for (const name in tag.attributes) {
    const a = tag.attributes[name];
    // xmlns declarations are not attributes of the data
    if (a.prefix === 'xmlns' || (a.prefix === '' && a.local === 'xmlns')) continue;
    map.set(attrKey(a.uri, a.local), a.value);
  }
  return map;
}

/**
 * The rows of one XML document, a batch per chunk read. Breaking out of the loop returns the
 * source iterator, which destroys its stream: reading stops there.
 */
export async function* xmlRows(
  input: AsyncIterable<Uint8Array | string>,
  steps: readonly RowStep[],
  columns: readonly XmlColumnPath[],
  documentName: string,
  table?: string,
): AsyncGenerator<RawRow[]> {
  const reader = new XmlRowReader(steps, columns, documentName, table);
  const decoder = new TextDecoder('utf-8');
  const parse = (fn: () => void): void => {
    try {
      fn();
    } catch (err) {
      if (isJunctionError(err)) throw err;
      throw new JunctionError(
        'document_parse_error',
        'user',
        `The XML document ${documentName} cannot be read: ${(err as Error).message.replace(/^[^:]*?:(\d+:\d+: )/, '$1')}`,
        { cause: err, details: { document: documentName } },
      );
    }
  };
  for await (const chunk of input) {
    const text = typeof chunk === 'string' ? chunk : decoder.decode(chunk, { stream: true });
    parse(() => reader.write(text));
    if (reader.rows.length > 0) {
      const rows = reader.rows;
      reader.rows = [];
      yield rows;
    }
  }
  parse(() => {
    reader.write(decoder.decode());
    reader.end();
  });
  if (reader.rows.length > 0) yield reader.rows;
}
