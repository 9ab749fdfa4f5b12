// Community proposals against the knowledge canon (link_add, tag_correction, concept_stub, essay_promotion):
// filed by people and by the pipeline, flagged by the community (enough flags reject), decided by moderators.
// `registerProposalRoutes` wires the HTTP side; `createProposal` is the plain data function the pipeline calls.
export { registerProposalRoutes } from './routes.ts';
export { createProposal, ProposalInputError, type ProposalInput, type ProposalRow } from '../../src/lib/data/proposals/store.ts';
export { TRANSITIONS, nextStatus } from '../../src/lib/data/proposals/transitions.ts';
