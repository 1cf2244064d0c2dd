/** The words of dates and durations the local engine reads (dates.ts resolves them). */
import { FOREIGN_MONTHS } from './months-i18n.js';
import { wordTable } from '../../lib/word-table.js';

export const WEEKDAYS: Readonly<Record<string, number>> = wordTable({
  sunday: 0, monday: 1, tuesday: 2, wednesday: 3, thursday: 4, friday: 5, saturday: 6,
  mon: 1, tue: 2, tues: 2, thu: 4, thur: 4, thurs: 4, fri: 5,
  // "sun", "sat" and "wed" are also English words, "mon" is French "my" ("à mon frère"): only after on/by/until/next/this/before.
  sun: 0, sat: 6, wed: 3,
});
export const GUARDED_WEEKDAYS = new Set(['sun', 'sat', 'wed', 'mon']);

export const MONTHS: Readonly<Record<string, number>> = wordTable({
  january: 1, jan: 1, february: 2, feb: 2, march: 3, mar: 3, april: 4, apr: 4, may: 5, june: 6, jun: 6,
  july: 7, jul: 7, august: 8, aug: 8, september: 9, sep: 9, sept: 9, october: 10, oct: 10,
  november: 11, nov: 11, december: 12, dec: 12,
  ...FOREIGN_MONTHS,
});
// "may" and "march" are verbs too: a month alone needs a preposition before it.
export const GUARDED_MONTHS = new Set(['may', 'march', 'mar', 'jan', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec', 'feb', 'apr', 'sept']);

export const NUMBER_WORDS: Readonly<Record<string, number>> = wordTable({
  a: 1, an: 1, one: 1, two: 2, three: 3, four: 4, five: 5, six: 6, seven: 7, eight: 8, nine: 9, ten: 10,
  eleven: 11, twelve: 12, fourteen: 14, thirty: 30, couple: 2, few: 3,
});

export type Unit = 'minute' | 'hour' | 'day' | 'week' | 'month' | 'year';
export const TIME_UNITS: Readonly<Record<string, Unit>> = wordTable({
  minute: 'minute', minutes: 'minute', min: 'minute', mins: 'minute',
  hour: 'hour', hours: 'hour', hr: 'hour', hrs: 'hour', h: 'hour',
  day: 'day', days: 'day', d: 'day',
  week: 'week', weeks: 'week', wk: 'week', wks: 'week',
  month: 'month', months: 'month', mo: 'month', mos: 'month',
  year: 'year', years: 'year', yr: 'year', yrs: 'year',
});
