import { defineQuery } from '@temporalio/workflow';
import type { flightChanges } from '../src/db/schema';
import type { FlightOrder } from '../src/suppliers/flights';

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

export interface ChangeResult {
  changeId: number;
  orderId: number;
  status: (typeof flightChanges.$inferSelect)['status'];
  totalMinor: number;
  orderTotalMinor: number;
  currency: string;
}

/** What the airline's order is after a change: its legs, tickets, seats and bags and total, and the change it made (none for bags added). */
export interface ChangedAtAirline {
  supplierChangeId: string | null;
  order: Pick<FlightOrder, 'legs' | 'tickets' | 'total' | 'services'>;
}
