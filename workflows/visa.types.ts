import { defineQuery, defineSignal } from '@temporalio/workflow';

export const visaWorkflowId = (orderId: number) => `visa-application:order:${orderId}`;

/** An embassy decision, relayed by an operator (admin CLI: visa decide). */
export interface VisaDecision {
  approve: boolean;
  reason: string;
  operator: string;
}

export interface VisaApplicationInput {
  orderId: number;
  applicationId: number;
  /** Sandbox only: decide by itself after this long, the way the partner asked. */
  sandbox: { approve: boolean; afterMs: number } | null;
}

/** The embassy's decision, relayed by an operator to the application's workflow. */
export const visaDecisionSignal = defineSignal<[VisaDecision]>('visaDecision');
export const visaStateQuery = defineQuery<{ state: 'under_review' | 'decided'; decision: VisaDecision | null }>('visaState');

export interface VisaDecisionResult {
  applicationId: number;
  status: 'approved' | 'rejected';
  refundMinor: number;
  ledgerId: number | null;
}
