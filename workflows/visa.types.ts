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
