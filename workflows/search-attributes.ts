import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';

/**
 * Typed search attributes every booking workflow sets, so an operator can find any
 * booking in Temporal Web (e.g. `Stage = "compensating"` or `OrderId = 42`). The dev
 * server is started with these registered, and a Temporal cluster gets them at start-up.
 */
export const PartnerId = defineSearchAttributeKey('PartnerId', SearchAttributeType.INT);
export const OrderId = defineSearchAttributeKey('OrderId', SearchAttributeType.INT);
export const Service = defineSearchAttributeKey('Service', SearchAttributeType.KEYWORD);
export const OrderStatus = defineSearchAttributeKey('OrderStatus', SearchAttributeType.KEYWORD);
export const Stage = defineSearchAttributeKey('Stage', SearchAttributeType.KEYWORD);
/** The airline's id of a schedule change, on its workflow: what an operator holding the supplier's id searches by. */
export const ScheduleChangeId = defineSearchAttributeKey('ScheduleChangeId', SearchAttributeType.KEYWORD);

export const SEARCH_ATTRIBUTES = [PartnerId, OrderId, Service, OrderStatus, Stage, ScheduleChangeId];

export type StageName =
  'debiting' | 'finalizing' | 'completing' | 'compensating' | 'holding' | 'waiting' | 'releasing' | 'cancelling' | 'needs_attention' | 'done' | 'failed';
