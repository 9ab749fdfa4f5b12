// What the server logs to console.error while a test runs (unhandled errors, outages), kept instead of
// printed, so a test can check what was logged and how often.
import { vi } from 'vitest';

/** Starts keeping console.error's lines; `restore()` puts console.error back (call it in afterAll). */
export function captureConsoleErrors(): { lines: string[]; restore(): void } {
  const lines: string[] = [];
  const spy = vi.spyOn(console, 'error').mockImplementation((...args: unknown[]) => void lines.push(args.map(String).join(' ')));
  return { lines, restore: () => spy.mockRestore() };
}
