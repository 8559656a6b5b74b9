/** Identifies one pay workflow run; every ledger row it writes carries it. */
export interface PaymentRun {
  workflowId: string;
  runId: string;
}
