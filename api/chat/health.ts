// What operators see of the language model in /api/health?detail=true: calls, failures by kind, the last
// error. Counted in memory since the server started.
import type { LlmFailure } from '../../src/lib/llm/client.ts';

export interface LlmHealth {
  configured: boolean;
  model: string | null;
  calls: number;
  failures: Record<LlmFailure, number>;
  last_error: string | null;
  last_error_at: string | null;
}

export function createLlmHealth(model: string | null): LlmHealth & { record(failure: LlmFailure | null, message?: string): void } {
  const h = {
    configured: model !== null,
    model,
    calls: 0,
    failures: { timeout: 0, http: 0, unreachable: 0, malformed: 0 },
    last_error: null as string | null,
    last_error_at: null as string | null,
    record(failure: LlmFailure | null, message?: string) {
      h.calls++;
      if (failure) {
        h.failures[failure]++;
        h.last_error = message ?? failure;
        h.last_error_at = new Date().toISOString();
      }
    },
  };
  return h;
}
