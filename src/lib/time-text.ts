/**
 * The one way a time is written for people on every page (issue 27): "26 Nov 2026, 21:04 UTC".
 * Server pages and the app's scripts (src/web/assets/lib.js mirrors this) both write UTC with the
 * zone named, so a receipt, the dashboard and the Developers screen never disagree.
 */
const DATE = new Intl.DateTimeFormat('en-GB', { day: 'numeric', month: 'short', year: 'numeric', timeZone: 'UTC' });
const TIME = new Intl.DateTimeFormat('en-GB', { hour: '2-digit', minute: '2-digit', hour12: false, timeZone: 'UTC' });

export function timeText(iso: string | Date): string {
  const d = iso instanceof Date ? iso : new Date(iso);
  if (Number.isNaN(d.getTime())) return String(iso);
  return `${DATE.format(d)}, ${TIME.format(d)} UTC`;
}
