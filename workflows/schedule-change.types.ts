import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';
import type { ActorRecord } from '../src/platform/actor';
import type { RefundResult as FlightRefundResult } from './refund.types';

/**
 * One workflow per order and airline change: the webhook, the poll and a repeated webhook
 * all start (or join) the same one, so the partner is told once.
 */
export const scheduleChangeWorkflowId = (orderId: number, changeId: string) => `schedule-change:${orderId}:${changeId}`;

export interface ScheduleChangeInput {
  orderId: number;
  /** The airline's (the supplier's) id of the change. */
  changeId: string;
}

export type ScheduleChangeDecisionName = 'accept' | 'cancel';

/** The partner's decision (POST /api/flights/air_schedule_change/). */
export interface ScheduleChangeDecision {
  decision: ScheduleChangeDecisionName;
  actor?: ActorRecord | null;
  /** Sandbox: what the simulated airline does with the acceptance (X-Sandbox-Scenario). */
  scenario?: string;
}

/** How a schedule change ended: accepted, cancelled (and refunded), or replaced by a change the partner asked for. */
export interface ScheduleChangeResult {
  orderId: number;
  changeId: string;
  status: 'accepted' | 'cancelled' | 'changed';
  resolvedBy: 'partner' | 'default' | 'change';
  refund: FlightRefundResult | null;
}

/** What the workflow shows: where it stands and, when parked, why (the shape operators' tools read for any parked workflow). */
export interface ScheduleChangeState {
  orderId: number;
  changeId: string;
  /** recording, waiting, accepting, cancelling, needs_attention, done. */
  step: string;
  stage: string;
  lastError: string | null;
  decideBy: number | null;
  decision: ScheduleChangeDecisionName | null;
  resolvedBy: ScheduleChangeResult['resolvedBy'] | null;
  /** Set while parked: applying the decision failed for good, or the deadline's default was applied and waits for an operator's look. */
  parkedAt?: 'applying_decision' | 'default_applied';
  failedStep?: string;
}

/** The partner decides: accept the airline's new schedule, or cancel the order with a full refund. */
export const decideScheduleChangeUpdate = defineUpdate<{ decision: ScheduleChangeDecisionName }, [ScheduleChangeDecision]>('decideScheduleChange');

/**
 * The partner replaced the airline's change with a change of its own (POST
 * /api/flights/air_change_confirm/): once that change is confirmed, its workflow (or the
 * code that confirmed it) sends this, and the schedule change ends as `changed`. A workflow
 * can send it (a signal, unlike an update); one sent after a decision is ignored.
 */
export const scheduleChangeChangedSignal = defineSignal<[{ orderChangeId: string }]>('scheduleChangeChanged');

export const scheduleChangeStateQuery = defineQuery<ScheduleChangeState>('scheduleChangeState');
