import { describe, expect, it } from 'vitest';
import { PreparedStatements } from './statements.js';

describe('PreparedStatements', () => {
  it('names a text from its second use and parses it once', () => {
    const s = new PreparedStatements(4);
    expect(s.use('A')).toEqual({ name: '', parse: true, close: [] });
    s.done('A', true);
    expect(s.use('A')).toEqual({ name: 'junction_1', parse: true, close: [] });
    s.done('A', true);
    expect(s.use('A')).toEqual({ name: 'junction_1', parse: false, close: [] });
    s.done('A', true);
    expect(s.names()).toEqual(['junction_1']);
  });

  it('closes the least recently used names beyond its capacity', () => {
    const s = new PreparedStatements(2);
    for (const text of ['A', 'B', 'A', 'B']) {
      s.use(text);
      s.done(text, true);
    }
    expect(s.names()).toEqual(['junction_1', 'junction_2']);
    s.use('A'); // A is now the most recently used
    s.done('A', true);
    expect(s.use('C')).toEqual({ name: '', parse: true, close: ['junction_2'] });
    s.done('C', true);
    expect(s.names()).toEqual(['junction_1']);
  });

  it('closes a name whose use failed or never reported, and starts the text over', () => {
    const s = new PreparedStatements(4);
    s.use('A');
    s.done('A', true);
    s.use('A');
    s.done('A', false);
    expect(s.use('A')).toEqual({ name: '', parse: true, close: ['junction_1'] });
    s.done('A', true);
    expect(s.use('A')).toEqual({ name: 'junction_2', parse: true, close: [] });
    // no done(): the next use cannot trust the name
    expect(s.use('A')).toEqual({ name: '', parse: true, close: ['junction_2'] });
  });

  it('names nothing with capacity 0', () => {
    const s = new PreparedStatements(0);
    for (let i = 0; i < 3; i++) {
      expect(s.use('A')).toEqual({ name: '', parse: true, close: [] });
      s.done('A', true);
    }
    expect(s.names()).toEqual([]);
  });
});
