import { describe, expect, it } from 'vitest';
import { compileColumnPath, compileRowPath, type Namespaces } from './xml-path.js';
import { xmlLimits, xmlRows, type RawRow } from './xml-rows.js';

async function rows(
  xml: string | string[],
  rowPath: string,
  columns: string[],
  ns: Namespaces = {},
): Promise<RawRow[]> {
  const chunks = (Array.isArray(xml) ? xml : [xml]).map((s) => Buffer.from(s, 'utf8'));
  const out: RawRow[] = [];
  const input = (async function* () {
    yield* chunks;
  })();
  for await (const b of xmlRows(
    input,
    compileRowPath(rowPath, ns),
    columns.map((c) => compileColumnPath(c, ns)),
    'test.xml',
  ))
    out.push(...b);
  return out;
}

const BANK = `<?xml version="1.0" encoding="UTF-8"?>
<Bank code="B1">
  <Customer id="c1" segment="retail">
    <Name>Ann &amp; Bob</Name>
    <Accounts branch="north">
      <Account id="a1" type="SAV">
        <Currency code="EUR">Euro</Currency>
        <Balance><OnlineActualBal>1909572716.10</OnlineActualBal></Balance>
        <Tag>first</Tag><Tag>second</Tag>
        <Note>Paid <b>in full</b> on time</Note>
      </Account>
      <Account id="a2" type="CUR">
        <Currency code="USD"/>
        <Note><![CDATA[<raw> & "quoted"]]></Note>
      </Account>
    </Accounts>
  </Customer>
  <Customer id="c2">
    <Accounts>
      <Account id="a3" type="SAV"><Balance><OnlineActualBal>-0.5</OnlineActualBal></Balance></Account>
    </Accounts>
  </Customer>
</Bank>`;

describe('xmlRows', () => {
  it('reads attributes, nested elements, repeated elements (the first), mixed content, CDATA and entities', async () => {
    expect(
      await rows(BANK, '/Bank/Customer/Accounts/Account', [
        '@id',
        'Currency',
        'Currency/@code',
        'Balance/OnlineActualBal',
        'Tag',
        'Note',
        'Missing',
        '@missing',
      ]),
    ).toEqual([
      ['a1', 'Euro', 'EUR', '1909572716.10', 'first', 'Paid in full on time', null, null],
      ['a2', '', 'USD', null, null, '<raw> & "quoted"', null, null],
      ['a3', null, null, '-0.5', null, null, null, null],
    ]);
  });

  it('reads ancestor attributes and the own text of an element', async () => {
    expect(await rows(BANK, '//Account', ['@id', '../@branch', '../../@id', '../../../@code', 'Note/text()'])).toEqual([
      ['a1', 'north', 'c1', 'B1', 'Paid  on time'],
      ['a2', 'north', 'c1', 'B1', '<raw> & "quoted"'],
      ['a3', null, 'c2', 'B1', null],
    ]);
  });

  it('filters rows by attribute predicates on any step', async () => {
    expect(await rows(BANK, '/Bank/Customer[@segment=\'retail\']//Account[@type="SAV"]', ['@id'])).toEqual([['a1']]);
    expect(await rows(BANK, "//Account[@type='SAV']", ['@id', 'text()'])).toEqual([
      ['a1', '\n        \n        \n        \n        \n      '],
      ['a3', ''],
    ]);
  });

  it('matches a default namespace by local name, or strictly when the table maps the empty prefix', async () => {
    const xml = `<c:Customer xmlns:c="urn:cust" xmlns="urn:acct" c:id="c9"><Account no="1"><Owner>Zoë</Owner></Account><x:Account xmlns:x="urn:other" no="2"/></c:Customer>`;
    expect(await rows(xml, '/c:Customer/Account', ['@no', 'Owner', '../@c:id'], { c: 'urn:cust' })).toEqual([
      ['1', 'Zoë', 'c9'],
      ['2', null, 'c9'],
    ]);
    expect(await rows(xml, '/c:Customer/Account', ['@no', 'Owner'], { c: 'urn:cust', '': 'urn:acct' })).toEqual([
      ['1', 'Zoë'],
    ]);
    expect(await rows(xml, '/c:Customer/o:Account', ['@no'], { c: 'urn:cust', o: 'urn:other' })).toEqual([['2']]);
  });

  it('reads rows across chunk boundaries, including a character split between chunks', async () => {
    const xml = '<r><a v="1">é€</a><a v="2">x</a></r>';
    const bytes = Buffer.from(xml, 'utf8');
    const chunks: Buffer[] = [];
    for (let i = 0; i < bytes.length; i += 3) chunks.push(bytes.subarray(i, i + 3));
    const out: RawRow[] = [];
    const input = (async function* () {
      yield* chunks;
    })();
    for await (const b of xmlRows(
      input,
      compileRowPath('/r/a'),
      [compileColumnPath('@v'), compileColumnPath('.')],
      'split.xml',
    ))
      out.push(...b);
    expect(out).toEqual([
      ['1', 'é€'],
      ['2', 'x'],
    ]);
  });

  it('resolves character references and predefined entities in text and attributes', async () => {
    expect(
      await rows('<r><a t="&lt;&#233;&#x20AC;&quot;&apos;">&#65;&amp;&gt;<![CDATA[&amp;]]></a></r>', '/r/a', [
        '@t',
        '.',
      ]),
    ).toEqual([[`<é€"'`, 'A&>&amp;']]);
  });

  it('never expands entities a DOCTYPE declares (no external files, no entity bombs)', async () => {
    const xxe = '<!DOCTYPE r [<!ENTITY x SYSTEM "file:///etc/passwd">]><r><a>&x;</a></r>';
    await expect(rows(xxe, '/r/a', ['.'])).rejects.toMatchObject({
      code: 'document_parse_error',
      message: 'The XML document test.xml cannot be read: 1:63: undefined entity.',
    });
  });

  it('keeps a row element nested inside a row as part of that row', async () => {
    expect(await rows('<r><n id="1"><n id="2">in</n></n></r>', '//n', ['@id', 'n'])).toEqual([['1', 'in']]);
  });

  it('refuses malformed XML with the document name', async () => {
    await expect(rows('<r><a></r>', '/r/a', ['@x'])).rejects.toMatchObject({
      code: 'document_parse_error',
      kind: 'user',
      message: expect.stringMatching(/^The XML document test\.xml cannot be read: .*unexpected close tag/),
    });
  });
});

describe('xmlRows limits', () => {
  const CAP = 256 * 1024;
  const PIECE = 'A'.repeat(64 * 1024);

  /** `head`, then PIECE forever: only a reader that gives up ends it. */
  function endless(head: string, pulled: { n: number }): AsyncIterable<Uint8Array> {
    return (async function* () {
      pulled.n++;
      yield Buffer.from(head);
      for (;;) {
        pulled.n++;
        yield Buffer.from(PIECE);
      }
    })();
  }

  async function read(
    input: AsyncIterable<Uint8Array | string> | string[],
    rowPath: string,
    columns: string[],
  ): Promise<RawRow[]> {
    const out: RawRow[] = [];
    const chunks = Array.isArray(input)
      ? (async function* () {
          yield* input;
        })()
      : input;
    for await (const b of xmlRows(
      chunks,
      compileRowPath(rowPath),
      columns.map((c) => compileColumnPath(c)),
      'big.xml',
      'accounts',
    ))
      out.push(...b);
    return out;
  }

  const tooLarge = {
    code: 'document_value_too_large',
    kind: 'user',
    message:
      'The XML document big.xml (table "accounts") cannot be read: a text node, attribute, comment or CDATA section is longer than 0.25 MiB, the most one value may hold.',
    details: { document: 'big.xml', table: 'accounts', limit: CAP },
  };

  const limited = async (fn: () => Promise<void>, limits: Partial<typeof xmlLimits>): Promise<void> => {
    const saved = { ...xmlLimits };
    Object.assign(xmlLimits, limits);
    try {
      await fn();
    } finally {
      Object.assign(xmlLimits, saved);
    }
  };

  it('gives up on a text node over the limit in an element no column reads, after reading just past the limit', () =>
    limited(
      async () => {
        const pulled = { n: 0 };
        await expect(read(endless('<r><ignored>', pulled), '/r/a', ['.'])).rejects.toMatchObject(tooLarge);
        // the head, then pieces until 5 × 64 KiB passes 256 KiB: nothing more was read or held
        expect(pulled.n).toBe(6);
      },
      { maxValueChars: CAP },
    ));

  it("gives up on a CDATA section or comment over the limit even when '<' keeps appearing in it", () =>
    limited(
      async () => {
        for (const head of ['<r><a><![CDATA[', '<r><!--']) {
          const pulled = { n: 0 };
          const input = (async function* () {
            pulled.n++;
            yield head;
            for (;;) {
              pulled.n++;
              yield PIECE.slice(1) + '<';
            }
          })();
          await expect(read(input, '/r/a', ['.'])).rejects.toMatchObject(tooLarge);
          // the opener counts too: 4 pieces and it passes 256 KiB
          expect(pulled.n).toBe(5);
        }
      },
      { maxValueChars: CAP },
    ));

  it('reads a text node of exactly the limit, and refuses one character more', () =>
    limited(
      async () => {
        const value = 'é'.repeat(CAP);
        const chunks = (v: string): string[] => ['<r><a>', v.slice(0, 100_000), v.slice(100_000), '</a><a>x</a></r>'];
        expect(await read(chunks(value), '/r/a', ['.'])).toEqual([[value], ['x']]);
        await expect(read(chunks(value + 'é'), '/r/a', ['.'])).rejects.toMatchObject(tooLarge);
      },
      { maxValueChars: CAP },
    ));

  it('refuses elements nested deeper than the limit, quickly, and reads them at the limit', async () => {
    const nested = (depth: number): string => '<a>'.repeat(depth) + '<b>x</b>' + '</a>'.repeat(depth);
    expect(xmlLimits.maxDepth).toBe(1000);
    expect(await read([nested(999)], '//b', ['.'])).toEqual([['x']]);
    const started = performance.now();
    await expect(read([nested(16_000)], '//a//b', ['.'])).rejects.toMatchObject({
      code: 'document_too_deep',
      kind: 'user',
      message:
        'The XML document big.xml (table "accounts") cannot be read: it nests elements more than 1000 levels deep.',
      details: { document: 'big.xml', table: 'accounts', limit: 1000 },
    });
    expect(performance.now() - started).toBeLessThan(500);
    await expect(read([nested(1000)], '//b', ['.'])).rejects.toMatchObject({ code: 'document_too_deep' });
  });
});

describe('compile paths', () => {
  it('refuses what the streaming reader cannot answer', () => {
    expect(() => compileColumnPath('../Name')).toThrow(
      `The column path "../Name" is not a path documents understand: after '..' only an attribute ('../@id') can be read: earlier elements are gone when the row streams.`,
    );
    expect(() => compileRowPath('Account')).toThrow(
      `The row path "Account" is not a path documents understand: it must start with '/' or '//'.`,
    );
    expect(() => compileRowPath('/x:Account')).toThrow('the prefix "x" is not declared');
    expect(() => compileRowPath('/a[position()=1]')).toThrow("only [@attribute='value'] predicates are supported");
  });
});
