// The proposal lifecycle as data: which moderator action moves which status where. Community flags have
// one transition of their own (pending → rejected with decided_by null, at the threshold), in store.ts.
//
//   pending ──accept──► accepted ──apply──► applied
//      │                  │
//      ├──reject──────────┴──reject──► rejected
//      └──supersede───────┴──supersede──► superseded
//
// rejected, applied and superseded are final: nothing leaves them.
import type { DecisionAction, ProposalStatus } from './payloads.ts';

export const TRANSITIONS: Record<DecisionAction, { from: readonly ProposalStatus[]; to: ProposalStatus }> = {
  accept: { from: ['pending'], to: 'accepted' },
  reject: { from: ['pending', 'accepted'], to: 'rejected' },
  apply: { from: ['accepted'], to: 'applied' },
  supersede: { from: ['pending', 'accepted'], to: 'superseded' },
};

export const FINAL_STATUSES: readonly ProposalStatus[] = ['rejected', 'applied', 'superseded'];

/** The status `action` leads to from `from`, or null when that transition is not allowed. */
export function nextStatus(from: ProposalStatus, action: DecisionAction): ProposalStatus | null {
  const t = TRANSITIONS[action];
  return t.from.includes(from) ? t.to : null;
}

/** The actions a moderator may take on a proposal in `status` (for the 409 message). */
export function allowedActions(status: ProposalStatus): DecisionAction[] {
  return (Object.keys(TRANSITIONS) as DecisionAction[]).filter((a) => TRANSITIONS[a].from.includes(status));
}

/** Listing buckets of GET /api/proposals?status=. */
export const STATUS_BUCKETS: Record<'pending' | 'decided' | 'all', readonly ProposalStatus[] | null> = {
  pending: ['pending'],
  decided: ['accepted', 'rejected', 'applied', 'superseded'],
  all: null,
};
