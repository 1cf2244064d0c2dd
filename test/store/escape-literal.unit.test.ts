import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { escapeLiteral } from '../../src/store/pg/deferred-writes.js';

// The round trips of several statements spell their values with this (deferred-writes.ts); it
// must give the driver's own text for every string (issue 23, eleventh round: the driver's
// builds one character at a time, ~20× slower on a row's JSON).
describe('escapeLiteral', () => {
  const doc = JSON.stringify({ id: 'pay_1', note: `it's "quoted" \\ back\\slash`, memo: 'ünïcødé 🙂', n: [1, 2] });
  const cases = [
    '', 'plain', "'", "''", '\\', '\\\\', "a'b\\c'd\\", " E'x'", 'NULL', '\u0000', '\ud800 lone surrogate', '🙂',
    'x'.repeat(10_000), `${"'".repeat(100)}${'\\'.repeat(100)}`, doc, JSON.stringify(doc),
  ];
  it.each(cases.map((s) => [s.slice(0, 30), s]))('%j spells as pg.escapeLiteral does', (_, s) => {
    expect(escapeLiteral(s)).toBe(pg.escapeLiteral(s));
  });
});
