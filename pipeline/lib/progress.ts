// Progress of long jobs: a bar on a terminal; otherwise (logs, CI) a line at the first count, one every five
// seconds, and one at the end.
export interface Progress {
  tick(n?: number): void;
  done(): void;
}

export function progress(label: string, total: number, out: NodeJS.WriteStream = process.stderr): Progress {
  const started = performance.now();
  let done = 0;
  /** When the last log line was written: the first render writes one (a count's start), then one every 5 s. */
  let lastLog = -Infinity;
  const tty = out.isTTY === true;
  const render = (final = false) => {
    const secs = (performance.now() - started) / 1000;
    const rate = secs > 0 ? done / secs : 0;
    if (tty) {
      const width = 30;
      const filled = total > 0 ? Math.round((done / total) * width) : width;
      out.write(`\r${label} [${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${done}/${total} ${rate.toFixed(1)}/s${final ? '\n' : ''}`);
    } else if (final || performance.now() - lastLog > 5000) {
      lastLog = performance.now();
      out.write(`${label}: ${done}/${total} (${rate.toFixed(1)}/s)\n`);
    }
  };
  return {
    tick(n = 1) {
      done += n;
      render();
    },
    done() {
      render(true);
    },
  };
}

/**
 * A bar for work that reports its own count, done of total (the search index's embedding, the site's
 * pages): made at the first report, which that work gives as it starts (done 0), so the rate counts from
 * the start and not from the first unit done.
 */
export function progressReport(label: string): { onProgress: (done: number, total: number) => void; finish: () => void } {
  let bar: Progress | undefined;
  let last = 0;
  return {
    onProgress: (done, total) => {
      bar ??= progress(label, total);
      bar.tick(done - last);
      last = done;
    },
    finish: () => bar?.done(),
  };
}
