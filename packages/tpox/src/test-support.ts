import { createReadStream } from 'node:fs';
import { SaxesParser } from 'saxes';

/**
 * For the tests only: reads an XML file with saxes (streamed, failing on any well-formedness
 * error) into a small element tree, so assertions see what any XML reader would see.
 */
export interface El {
  readonly name: string;
  readonly uri: string;
  readonly attrs: Record<string, string>;
  readonly children: El[];
  text: string;
}

export async function readXml(file: string): Promise<El> {
  const parser = new SaxesParser({ xmlns: true });
  const stack: El[] = [];
  let root: El | undefined;
  let failure: Error | undefined;
  parser.on('error', (e) => (failure ??= e));
  parser.on('opentag', (tag) => {
    const attrs: Record<string, string> = {};
    for (const a of Object.values(tag.attributes))
      if (a.prefix !== 'xmlns' && a.name !== 'xmlns') attrs[a.local] = a.value;
    const el: El = { name: tag.local, uri: tag.uri, attrs, children: [], text: '' };
    if (stack.length) stack[stack.length - 1].children.push(el);
    else root = el;
    stack.push(el);
  });
  parser.on('text', (t) => {
    if (stack.length) stack[stack.length - 1].text += t;
  });
  parser.on('closetag', () => void stack.pop());
  for await (const chunk of createReadStream(file, { encoding: 'utf8' })) {
    parser.write(chunk as string);
    if (failure) throw failure;
  }
  parser.close();
  if (failure) throw failure;
  if (!root) throw new Error(`${file}: no root element`);
  return root;
}

export function child(el: El, name: string): El | undefined {
  return el.children.find((c) => c.name === name);
}

/** the text of the element at a slash path below `el`; undefined when it is missing */
export function textAt(el: El, path: string): string | undefined {
  let at: El | undefined = el;
  for (const step of path.split('/')) at = at && child(at, step);
  return at?.text;
}

export function all(el: El, name: string): El[] {
  return el.children.filter((c) => c.name === name);
}

/** every element with this local name, depth first */
export function count(el: El, name: string): number {
  return (el.name === name ? 1 : 0) + el.children.reduce((n, c) => n + count(c, name), 0);
}
