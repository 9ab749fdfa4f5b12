// Progress of long jobs: a bar on a terminal, a line every few seconds otherwise (logs, CI).
export interface Progress {
  tick(n?: number): void;
  done(): void;
}

export function progress(label: string, total: number, out: NodeJS.WriteStream = process.stderr): Progress {
  const started = performance.now();
  let done = 0;
  let lastLog = 0;
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
