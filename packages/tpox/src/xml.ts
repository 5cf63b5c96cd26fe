import { FIXML_NS, type Customer, type Order, type Security } from './generate.js';

/**
 * The documents as XML text, one line each (no indentation: the files are read by machines and
 * a collection file stays a third smaller). Customer and security documents have no namespace so
 * their paths stay plain; FIXML orders carry FIXML's default namespace as the real ones do.
 */

export function escapeText(s: string): string {
  return s.replace(/[&<>]/g, (ch) => (ch === '&' ? '&amp;' : ch === '<' ? '&lt;' : '&gt;'));
}

export function escapeAttr(s: string): string {
  return s.replace(/[&<>"]/g, (ch) => (ch === '&' ? '&amp;' : ch === '<' ? '&lt;' : ch === '>' ? '&gt;' : '&quot;'));
}

function el(name: string, text: string): string {
  return `<${name}>${escapeText(text)}</${name}>`;
}

export function customerXml(c: Customer): string {
  let s =
    `<Customer id="${c.id}">` +
    `<Name>${el('FirstName', c.firstName)}${el('LastName', c.lastName)}</Name>` +
    el('DateOfBirth', c.dateOfBirth) +
    el('Gender', c.gender) +
    el('Nationality', c.nationality) +
    el('CountryOfResidence', c.countryOfResidence) +
    el('PremiumCustomer', c.premium ? 'Yes' : 'No') +
    '<Accounts>';
  for (const a of c.accounts) {
    s +=
      `<Account id="${a.id}">` +
      el('Category', a.category) +
      el('AccountTitle', a.title) +
      el('Currency', a.currency) +
      el('OpeningDate', a.openingDate) +
      `<Balance>${el('OnlineActualBal', a.balance)}</Balance>`;
    if (a.positions.length === 0) s += '<Holdings/>';
    else {
      s += '<Holdings>';
      for (const p of a.positions)
        s += `<Position>${el('Symbol', p.symbol)}${el('Name', p.name)}${el('Type', p.type)}${el('Qty', String(p.qty))}</Position>`;
      s += '</Holdings>';
    }
    s += '</Account>';
  }
  return s + '</Accounts></Customer>';
}

export function orderXml(o: Order): string {
  return (
    `<FIXML xmlns="${FIXML_NS}">` +
    `<Order ID="${o.id}" Side="${o.side}" Acct="${o.accountId}" TrdDt="${o.tradeDate}" Px="${o.price}">` +
    `<Instrmt Sym="${escapeAttr(o.symbol)}"/><OrdQty Qty="${o.quantity}"/></Order></FIXML>`
  );
}

export function securityXml(s: Security): string {
  const info =
    s.type === 'Stock'
      ? `<StockInformation>${el('Sector', s.sector ?? '')}${el('Industry', s.industry ?? '')}</StockInformation>`
      : `<FundInformation>${el('FundFamily', s.fundFamily ?? '')}</FundInformation>`;
  return (
    '<Security>' +
    el('Symbol', s.symbol) +
    el('Name', s.name) +
    el('SecurityType', s.type) +
    `<SecurityInformation>${info}</SecurityInformation>` +
    `<Price>${el('LastTrade', s.lastTrade)}</Price>` +
    '</Security>'
  );
}
