import { describe, expect, it } from 'vitest';
import { compileColumnPath, compileRowPath, type Namespaces } from './xml-path.js';
import { xmlRows, type RawRow } from './xml-rows.js';

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
