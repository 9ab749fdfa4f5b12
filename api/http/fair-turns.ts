// Turns for the app's requests, so that the listener's own answers (the health and readiness probes, the
// prerendered files) never wait behind a burst of them. On SQLite a write runs to its end on the event loop
// in one go (its statements are synchronous, its awaits settle at once): when 32 clients write, one
// iteration of the event loop started every request that had arrived, ~1.3 ms each, and a health probe
// that came in meanwhile waited for all of them (p99 90 ms). With turns, the first request of an iteration
// starts at once and the others wait in arrival order, one started per iteration (setImmediate), so the
// probes and static reads that arrive meanwhile are answered between two requests. The app's work is the
// same, only interleaved; on PostgreSQL, where a request's work is spread over its round trips, a turn only
// orders the starts. See docs/decisions/0060-fair-turns-for-app-requests.md for the figures.

/** Runs each task given, at once when nothing else started in this iteration of the event loop, else in turn. */
export type TurnTaker = (task: () => void) => void;

export function fairTurns(onError: (err: unknown) => void): TurnTaker {
  const waiting: (() => void)[] = [];
  /** A task started since the last check phase (setImmediate) of the event loop. */
  let started = false;
  let scheduled = false;
  const run = (task: () => void) => {
    started = true;
    try {
      task();
    } catch (err) {
      onError(err);
    }
  };
  const schedule = () => {
    if (scheduled) return;
    scheduled = true;
    setImmediate(turn);
  };
  // The check phase: the I/O callbacks of this iteration (probes among them) have run. Start the next task
  // waiting, and come back next iteration while any wait (or one just started, to end its turn).
  function turn() {
    scheduled = false;
    started = false;
    const next = waiting.shift();
    if (next) run(next);
    if (started || waiting.length > 0) schedule();
  }
  return (task) => {
    if (!started && waiting.length === 0) run(task);
    else waiting.push(task);
    schedule();
  };
}
