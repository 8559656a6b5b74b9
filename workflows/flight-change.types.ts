import { defineQuery } from '@temporalio/workflow';
import type { ChangeResult } from '../src/domain/flights/changes';

export type { ChangeResult };

/** One change per partner and idempotency key (src/domain/flights/changes.ts, changeWorkflowId). */
export interface ChangeFlightInput {
  changeId: number;
  orderId: number;
  /** Other flights, or bags added (absent: other flights). */
  kind?: 'change' | 'services';
  /** The sandbox scenario the airline plays (X-Sandbox-Scenario), passed to its step. */
  scenario?: string;
}

/** Where a flight change parks for an operator: the airline's answer lost for good, or a step that must happen failing. */
export type ChangeParkedAt = 'changing' | 'completing' | 'compensating';

export interface ChangeState {
  orderId: number;
  changeId: number;
  step: string;
  stage: string;
  lastError: string | null;
  parkedAt?: ChangeParkedAt;
  failedStep?: string;
}

export const changeStateQuery = defineQuery<ChangeState>('flightChangeState');
