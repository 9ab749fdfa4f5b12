// formatDate as pages show dates: the same text whether it was formatted before (the memo of calendar
// dates) or not, in both languages, and a date it cannot read shown as written.
import { describe, expect, it } from 'vitest';
import { formatDate } from '../../src/web/format.ts';

describe('formatDate', () => {
  it('formats calendar dates in the page language, the same on every call', () => {
    for (let i = 0; i < 3; i++) {
      expect(formatDate('2026-11-24')).toBe('24 November 2026');
      expect(formatDate('2026-11-24', 'sl')).toBe('24. november 2026');
      expect(formatDate('2026-01-05', 'en')).toBe('5 January 2026');
    }
  });

  it('formats timestamps by their UTC day, and leaves what is no date as written', () => {
    expect(formatDate('2026-11-24T23:59:00Z')).toBe('24 November 2026');
    expect(formatDate('2026-13-45')).toBe('2026-13-45');
    expect(formatDate('2026-13-45')).toBe('2026-13-45');
    expect(formatDate('not a date')).toBe('not a date');
  });

  it('stays right past the number of days it keeps', () => {
    const day = (n: number) => new Date(Date.UTC(1990, 0, 1) + n * 86_400_000).toISOString().slice(0, 10);
    for (let n = 0; n < 20_500; n++) formatDate(day(n));
    expect(formatDate(day(0))).toBe('1 January 1990');
    expect(formatDate(day(20_499), 'sl')).toBe(new Intl.DateTimeFormat('sl-SI', { day: 'numeric', month: 'long', year: 'numeric', timeZone: 'UTC' }).format(new Date(`${day(20_499)}T00:00:00Z`)));
  });
});
