import type { Token } from './tokenize.js';
import { GUARDED_MONTHS, GUARDED_WEEKDAYS, MONTHS, NUMBER_WORDS, TIME_UNITS, WEEKDAYS, type Unit } from './date-words.js';

/**
 * Close times for markets, resolved against the caller's clock and time zone without a
 * date library: Intl gives the zone's offset, the rest is calendar arithmetic on UTC.
 *
 * Rules (docs/local-engine.md): a named day ("Friday", "tomorrow", "Dec 5", "2026-12-01")
 * closes at the end of that day, 23:59:59 in the user's zone; "in 3 days/hours/weeks" is
 * that long from now; "end of month/week/year" is 23:59:59 on its last day; an explicit
 * time ("at 6pm") replaces the end of day.
 */

export type LocalDate = { year: number; month: number; day: number };
export type LocalDateTime = LocalDate & { hour: number; minute: number; second: number };

const formatters = new Map<string, Intl.DateTimeFormat>();

export function safeTimeZone(tz: string | undefined): string {
  if (!tz) return 'UTC';
  // A zone that built a formatter once is valid for the life of the process (the zone data
  // does not change under it): no second Intl.DateTimeFormat per message for it.
  if (formatters.has(tz)) return tz;
  try {
    formatter(tz);
    return tz;
  } catch {
    return 'UTC';
  }
}

function formatter(tz: string): Intl.DateTimeFormat {
  let f = formatters.get(tz);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone: tz,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    });
    formatters.set(tz, f);
  }
  return f;
}

export function partsInZone(instant: Date, tz: string): LocalDateTime {
  // UTC is the instant's own UTC fields (formatToParts is the slowest step of a parse).
  const year = instant.getUTCFullYear();
  if (tz === 'UTC' && year >= 1000 && year <= 9999) {
    return { year, month: instant.getUTCMonth() + 1, day: instant.getUTCDate(), hour: instant.getUTCHours(), minute: instant.getUTCMinutes(), second: instant.getUTCSeconds() };
  }
  const p: Record<string, number> = {};
  for (const part of formatter(tz).formatToParts(instant)) {
    if (part.type !== 'literal') p[part.type] = Number(part.value);
  }
  return {
    year: p.year!,
    month: p.month!,
    day: p.day!,
    hour: p.hour! % 24,
    minute: p.minute!,
    second: p.second!,
  };
}

/** Minutes the zone is ahead of UTC at that instant. */
export function offsetMinutes(instant: Date, tz: string): number {
  const p = partsInZone(instant, tz);
  const asUtc = Date.UTC(p.year, p.month - 1, p.day, p.hour, p.minute, p.second);
  const whole = Math.floor(instant.getTime() / 1000) * 1000;
  return Math.round((asUtc - whole) / 60_000);
}

/** The instant a wall-clock time happens in a zone (the later reading when clocks jump). */
export function zonedToInstant(local: LocalDateTime, tz: string): Date {
  const guess = Date.UTC(local.year, local.month - 1, local.day, local.hour, local.minute, local.second);
  const first = guess - offsetMinutes(new Date(guess), tz) * 60_000;
  const second = guess - offsetMinutes(new Date(first), tz) * 60_000;
  return new Date(second);
}

const pad = (n: number, w = 2) => String(Math.abs(n)).padStart(w, '0');

/** ISO 8601 with the zone's offset: "2026-03-13T23:59:59+01:00". */
export function formatInZone(instant: Date, tz: string): string {
  const p = partsInZone(instant, tz);
  const off = offsetMinutes(instant, tz);
  const sign = off < 0 ? '-' : '+';
  return `${pad(p.year, 4)}-${pad(p.month)}-${pad(p.day)}T${pad(p.hour)}:${pad(p.minute)}:${pad(p.second)}${sign}${pad(Math.floor(Math.abs(off) / 60))}:${pad(Math.abs(off) % 60)}`;
}

export function addDays(d: LocalDate, n: number): LocalDate {
  const t = new Date(Date.UTC(d.year, d.month - 1, d.day + n));
  return { year: t.getUTCFullYear(), month: t.getUTCMonth() + 1, day: t.getUTCDate() };
}

export function daysInMonth(year: number, month: number): number {
  return new Date(Date.UTC(year, month, 0)).getUTCDate();
}

function addMonths(d: LocalDateTime, n: number): LocalDateTime {
  const total = d.year * 12 + (d.month - 1) + n;
  const year = Math.floor(total / 12);
  const month = (total % 12) + 1;
  return { ...d, year, month, day: Math.min(d.day, daysInMonth(year, month)) };
}

/** 0 = Sunday. */
export function weekday(d: LocalDate): number {
  return new Date(Date.UTC(d.year, d.month - 1, d.day)).getUTCDay();
}

const compareDates = (a: LocalDate, b: LocalDate) => a.year - b.year || a.month - b.month || a.day - b.day;

export type TimeExpression = {
  at: Date;
  /** Token span [start, end). */
  start: number;
  end: number;
};

export type Clock = { now: Date; tz: string };

function endOfDay(d: LocalDate, tz: string): Date {
  return zonedToInstant({ ...d, hour: 23, minute: 59, second: 59 }, tz);
}

/** Finds every date or duration expression in the tokens, left to right. */
export function findTimeExpressions(tokens: readonly Token[], clock: Clock): TimeExpression[] {
  const { now, tz } = clock;
  const nowLocal = partsInZone(now, tz);
  const today: LocalDate = { year: nowLocal.year, month: nowLocal.month, day: nowLocal.day };
  const norm = (i: number) => tokens[i]?.norm ?? '';
  const found: TimeExpression[] = [];

  for (let i = 0; i < tokens.length; i++) {
    const hit = matchAt(i);
    if (!hit) continue;
    // An explicit clock time after a day: "Friday at 6pm", "Dec 5 18:00", "tomorrow noon".
    let { end } = hit;
    let at = hit.at;
    if (hit.day) {
      const t = timeAt(end);
      if (t) {
        at = zonedToInstant({ ...hit.day, hour: t.hour, minute: t.minute, second: t.second }, tz);
        end = t.end;
      }
    }
    found.push({ at, start: i, end });
    i = end - 1;
  }
  return found;

  function timeAt(j: number): { hour: number; minute: number; second: number; end: number } | undefined {
    let k = j;
    if (norm(k) === 'at' || norm(k) === 'by' || norm(k) === ',') k++;
    const t = tokens[k];
    if (!t) return undefined;
    if (t.kind === 'time') return { hour: t.hour!, minute: t.minute!, second: 0, end: k + 1 };
    if (t.norm === 'noon' || t.norm === 'midday') return { hour: 12, minute: 0, second: 0, end: k + 1 };
    if (t.norm === 'midnight') return { hour: 23, minute: 59, second: 59, end: k + 1 };
    return undefined;
  }

  function count(j: number): number | undefined {
    const t = tokens[j];
    if (!t) return undefined;
    if (t.kind === 'number' && !t.idLike && !t.scaled && t.value && /^\d{1,4}$/.test(t.value)) return Number(t.value);
    return NUMBER_WORDS[t.norm];
  }

  function shift(unit: Unit, n: number): Date {
    const ms = { minute: 60_000, hour: 3_600_000, day: 86_400_000, week: 604_800_000 } as const;
    if (unit === 'month' || unit === 'year') {
      const local = addMonths(nowLocal, unit === 'month' ? n : n * 12);
      return zonedToInstant(local, tz);
    }
    return new Date(now.getTime() + n * ms[unit]);
  }

  function dayOf(d: LocalDate): { at: Date; day: LocalDate } {
    return { at: endOfDay(d, tz), day: d };
  }

  function matchAt(i: number): { at: Date; end: number; day?: LocalDate } | undefined {
    const w = norm(i);
    const t = tokens[i]!;
    const prev = norm(i - 1);

    // "in 3 days", "within a week", "after 2 hours", "for 5 days"
    if (w === 'in' || w === 'within' || w === 'after' || w === 'for') {
      let j = i + 1;
      if (norm(j) === 'the' && norm(j + 1) === 'next') j += 2;
      else if (norm(j) === 'next') j++;
      let n = count(j);
      if (n !== undefined && norm(j + 1) === 'of' && norm(j) === 'couple') j++;
      let unitIdx = j + 1;
      if (n === undefined && TIME_UNITS[norm(j)] && norm(i + 1) === 'the') n = 1; // "in the next day"
      if (n === undefined && TIME_UNITS[norm(j)]) {
        n = 1;
        unitIdx = j;
      }
      const unit = TIME_UNITS[norm(unitIdx)];
      if (n !== undefined && unit && n > 0) {
        let end = unitIdx + 1;
        if (norm(end) === 'time') end++;
        if (norm(end) === 'from' && norm(end + 1) === 'now') end += 2;
        return { at: shift(unit, n), end };
      }
    }
    // "3 days from now", "2 weeks time"
    {
      const n = count(i);
      const unit = TIME_UNITS[norm(i + 1)];
      if (n !== undefined && unit && n > 0 && ((norm(i + 2) === 'from' && norm(i + 3) === 'now') || norm(i + 2) === 'time')) {
        return { at: shift(unit, n), end: norm(i + 2) === 'time' ? i + 3 : i + 4 };
      }
    }
    if (w === 'today' || w === 'tonight' || w === 'eod') return { ...dayOf(today), end: i + 1 };
    if (w === 'tomorrow' || w === 'tmrw' || w === 'tmr' || w === 'tomorow' || w === 'tommorow' || w === '2moro' || w === 'tommorrow') {
      return { ...dayOf(addDays(today, 1)), end: i + 1 };
    }
    if (w === 'day' && norm(i + 1) === 'after' && (norm(i + 2) === 'tomorrow' || norm(i + 2) === 'tmrw')) {
      return { ...dayOf(addDays(today, 2)), end: i + 3 };
    }
    // "next week", "this month", "next year"
    if ((w === 'next' || w === 'this') && ['week', 'month', 'year', 'weekend'].includes(norm(i + 1))) {
      const what = norm(i + 1);
      if (what === 'weekend') return { ...dayOf(addDays(today, ((7 - weekday(today)) % 7) + (w === 'next' ? 7 : 0))), end: i + 2 };
      if (w === 'next' && what === 'week') return { ...dayOf(addDays(today, 7)), end: i + 2 };
      return periodEnd(what as 'week' | 'month' | 'year', w === 'next' ? 1 : 0, i + 2);
    }
    // "end of (the) month", "end of next week"
    if (w === 'end' && norm(i + 1) === 'of') {
      let j = i + 2;
      let ahead = 0;
      if (norm(j) === 'the' || norm(j) === 'this') j++;
      else if (norm(j) === 'next') {
        ahead = 1;
        j++;
      }
      const what = norm(j);
      if (what === 'day') return { ...dayOf(addDays(today, ahead)), end: j + 1 };
      if (what === 'week' || what === 'month' || what === 'year') return periodEnd(what, ahead, j + 1);
      const month = MONTHS[what];
      if (month) return monthEnd(month, j + 1);
    }
    if ((w === 'month' || w === 'week' || w === 'year') && norm(i + 1) === 'end') return periodEnd(w, 0, i + 2);
    if (w === 'monthend' || w === 'eom') return periodEnd('month', 0, i + 1);
    if (w === 'eow') return periodEnd('week', 0, i + 1);
    if (w === 'eoy' || w === 'yearend') return periodEnd('year', 0, i + 1);
    if (w === 'weekend' && (prev === 'this' || prev === 'the')) return { ...dayOf(addDays(today, (7 - weekday(today)) % 7)), end: i + 1 };

    // Weekdays: "Friday", "next friday", "on sat"
    {
      let j = i;
      let next = false;
      if (w === 'next' || w === 'this' || w === 'coming') {
        next = w === 'next';
        j = i + 1;
      }
      const name = norm(j);
      const wd = WEEKDAYS[name];
      const guardOk = !GUARDED_WEEKDAYS.has(name) || j > i || ['on', 'by', 'until', 'till', 'before', 'next', 'this'].includes(prev);
      if (wd !== undefined && guardOk && tokens[j]?.kind === 'word') {
        let delta = (wd - weekday(today) + 7) % 7;
        if (delta === 0 && next) delta = 7;
        return { ...dayOf(addDays(today, delta)), end: j + 1 };
      }
    }

    if (t.kind === 'isodate' && t.date) {
      const d = t.date;
      if (d.offset && d.hour !== undefined) {
        const iso = `${pad(d.year, 4)}-${pad(d.month)}-${pad(d.day)}T${pad(d.hour)}:${pad(d.minute ?? 0)}:${pad(d.second ?? 0)}${d.offset}`;
        const at = new Date(iso);
        if (!Number.isNaN(at.getTime())) return { at, end: i + 1 };
      }
      if (d.day > daysInMonth(d.year, d.month)) return undefined;
      if (d.hour !== undefined) {
        return { at: zonedToInstant({ year: d.year, month: d.month, day: d.day, hour: d.hour, minute: d.minute ?? 0, second: d.second ?? 0 }, tz), end: i + 1 };
      }
      return { ...dayOf({ year: d.year, month: d.month, day: d.day }), end: i + 1 };
    }

    // "Dec 5", "December 5th, 2026", "5 Dec", "5th of December 2026"
    {
      const month = MONTHS[w];
      if (month && t.kind === 'word') {
        const dayTok = tokens[i + 1];
        const day = dayNumber(dayTok);
        if (day !== undefined) {
          let end = i + 2;
          let year: number | undefined;
          if (norm(end) === ',') end++;
          const y = yearNumber(tokens[end]);
          if (y !== undefined) {
            year = y;
            end++;
          } else if (norm(i + 2) === ',') end--;
          return calendarDay(month, day, year, end);
        }
        const guarded = GUARDED_MONTHS.has(w);
        if (!guarded || ['by', 'in', 'before', 'until', 'till', 'of'].includes(prev)) {
          const y = yearNumber(tokens[i + 1]);
          return monthEnd(month, y !== undefined ? i + 2 : i + 1, y);
        }
      }
      const day = dayNumber(t);
      if (day !== undefined) {
        let j = i + 1;
        if (norm(j) === 'of' || norm(j) === 'de') j++;
        const m2 = MONTHS[norm(j)];
        if (m2 && tokens[j]?.kind === 'word') {
          const y = yearNumber(tokens[j + 1]);
          return calendarDay(m2, day, y, y !== undefined ? j + 2 : j + 1);
        }
      }
    }

    // A bare clock time: "at 6pm" -> today, or tomorrow if that time has passed.
    if ((w === 'at' || w === 'by') && tokens[i + 1]?.kind === 'time') {
      const tt = tokens[i + 1]!;
      let at = zonedToInstant({ ...today, hour: tt.hour!, minute: tt.minute!, second: 0 }, tz);
      if (at.getTime() <= now.getTime()) at = zonedToInstant({ ...addDays(today, 1), hour: tt.hour!, minute: tt.minute!, second: 0 }, tz);
      return { at, end: i + 2 };
    }
    return undefined;
  }

  function periodEnd(what: 'week' | 'month' | 'year', ahead: number, end: number) {
    if (what === 'week') {
      // Weeks end on Sunday.
      const sunday = addDays(today, (7 - weekday(today)) % 7 + 7 * ahead);
      return { ...dayOf(sunday), end };
    }
    if (what === 'month') {
      const m = addMonths({ ...nowLocal, day: 1 }, ahead);
      return { ...dayOf({ year: m.year, month: m.month, day: daysInMonth(m.year, m.month) }), end };
    }
    return { ...dayOf({ year: today.year + ahead, month: 12, day: 31 }), end };
  }

  function monthEnd(month: number, end: number, year?: number) {
    let y = year ?? today.year;
    if (year === undefined && month < today.month) y++;
    return { ...dayOf({ year: y, month, day: daysInMonth(y, month) }), end };
  }

  function calendarDay(month: number, day: number, year: number | undefined, end: number) {
    let y = year ?? today.year;
    if (day > daysInMonth(y, month)) return undefined;
    if (year === undefined && compareDates({ year: y, month, day }, today) < 0) y++;
    return { ...dayOf({ year: y, month, day }), end };
  }
}

function dayNumber(t: Token | undefined): number | undefined {
  if (!t || t.kind !== 'number' || t.idLike || t.scaled || t.currency || !t.value || !/^\d{1,2}$/.test(t.value)) return undefined;
  const n = Number(t.value);
  return n >= 1 && n <= 31 ? n : undefined;
}

function yearNumber(t: Token | undefined): number | undefined {
  if (!t || t.kind !== 'number' || t.ordinal || t.scaled || t.currency || !t.value || !/^20\d{2}$/.test(t.value)) return undefined;
  return Number(t.value);
}
