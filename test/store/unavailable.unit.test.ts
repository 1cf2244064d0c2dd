import { describe, expect, it } from 'vitest';
import { isStoreUnavailable } from '../../src/lib/store-unavailable.js';

const coded = (code: string, message = 'x') => Object.assign(new Error(message), { code });

describe('isStoreUnavailable: which store errors the doors answer with 503', () => {
  it.each([
    ['53300', 'too many clients / too many connections for role'],
    ['57014', 'statement timeout'],
    ['55P03', 'lock timeout'],
    ['40001', 'serialization failures past the retries'],
    ['40P01', 'deadlock past the retries'],
    ['57P01', 'administrator shut the session down'],
    ['57P03', 'the database is starting'],
    ['08006', 'connection failure'],
    ['ECONNREFUSED', 'nothing listening'],
    ['ENOSPC', 'disk full (lowdb)'],
  ])('%s (%s)', (code) => {
    expect(isStoreUnavailable(coded(code))).toBe(true);
  });

  it('the pg pool’s own errors, which carry no code, and a wrapped cause', () => {
    expect(isStoreUnavailable(new Error('timeout exceeded when trying to connect'))).toBe(true);
    expect(isStoreUnavailable(new Error('Connection terminated unexpectedly'))).toBe(true);
    expect(isStoreUnavailable(new Error('outer', { cause: coded('53300') }))).toBe(true);
  });

  it('not bad input, a conflict or a programming error: those keep their own answers', () => {
    for (const code of ['23505', '22P02', '42P01', 'ERR_INVALID_ARG_TYPE']) expect(isStoreUnavailable(coded(code))).toBe(false);
    expect(isStoreUnavailable(new TypeError('x is undefined'))).toBe(false);
    expect(isStoreUnavailable(undefined)).toBe(false);
    expect(isStoreUnavailable('53300')).toBe(false);
  });
});
