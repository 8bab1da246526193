/**
 * The rules between the fields of one event (docs/bundle-format.md, Events), checked on every event of a bundle
 * (validate-bundle.ts) and on every overridden occurrence of a series as it comes out of its overrides (series.ts).
 */
import { showValue } from './findings.ts';

type Rec = Record<string, unknown>;
const isRecord = (x: unknown): x is Rec => typeof x === 'object' && x !== null && !Array.isArray(x);

/** An all-day event gives its days as dates, and only an all-day event does. */
export function allDayRules(e: Rec, at: string, problem: (path: string, text: string) => void): void {
  const isDate = (x: unknown) => typeof x === 'string' && x.length === 10;
  for (const field of ['starts_at', 'ends_at'] as const) {
    if (e.all_day === true && typeof e[field] === 'string' && !isDate(e[field])) {
      problem(`${at}.${field}`, `${showValue(e[field])} must be a date (YYYY-MM-DD): the event is all-day`);
    } else if (e.all_day !== true && isDate(e[field])) {
      problem(`${at}.${field}`, `${showValue(e[field])} is a date alone: give a time with Z or an offset, or make the event all-day (all_day: true)`);
    }
  }
}

/**
 * The rules between an event's status and visitor fields (docs/bundle-format.md, Events): a rescheduled event says
 * when it was to start, and only a changed one may; an event attended online says where; a price says its currency.
 */
export function statusRules(e: Rec, at: string, problem: (path: string, text: string) => void): void {
  const status = typeof e.status === 'string' ? e.status : 'scheduled';
  if (status === 'rescheduled' && e.previous_start === undefined) {
    problem(`${at}.previous_start`, 'is required when the status is rescheduled: the start the event had before');
  }
  if (e.previous_start !== undefined && (status === 'scheduled' || status === 'moved_online')) {
    problem(`${at}.previous_start`, `is only for an event rescheduled, postponed or cancelled, not ${status}`);
  }
  if (status === 'rescheduled' && typeof e.previous_start === 'string' && Date.parse(e.previous_start) === Date.parse(e.starts_at as string)) {
    problem(`${at}.previous_start`, `${showValue(e.previous_start)} is starts_at itself: a rescheduled event has a new start`);
  }
  const mode = e.attendance_mode;
  if (e.online_url === undefined && (mode === 'online' || mode === 'mixed' || status === 'moved_online')) {
    problem(`${at}.online_url`, `is required when ${status === 'moved_online' ? 'the status is moved_online' : `attendance_mode is ${String(mode)}`}: where to attend`);
  }
  if (e.online_url !== undefined && mode === 'offline' && status !== 'moved_online') {
    problem(`${at}.online_url`, 'is given for an event whose attendance_mode is offline: make it online or mixed, or leave the URL out');
  }
  if (isRecord(e.offers)) {
    const { price, currency, free } = e.offers;
    if (typeof price === 'number' && currency === undefined) problem(`${at}.offers.currency`, 'is required with a price (an ISO 4217 code such as EUR)');
    if (currency !== undefined && price === undefined) problem(`${at}.offers.currency`, 'is given without a price');
    if (free === true && typeof price === 'number' && price > 0) problem(`${at}.offers.free`, `is true, yet the price is ${price}`);
  }
}
