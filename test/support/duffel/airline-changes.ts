/// <reference types="@duffel/api" />
import type { AirlineInitiatedChange, AirlineInitiatedChangeActionTaken, Order, OrderSlice } from '@duffel/api/types';
import { z } from 'zod';
import { invalidState, notFound, validation } from './errors';
import type { Flights } from './flights';
import { newId, paginate, parseBody, type Page } from './http';
import type { DuffelWebhookEvent, WebhookSender } from './webhooks';

/** What `order.airline_initiated_change_detected` carries in v2: the order, and which of its changes was detected. */
export type AirlineChangeDetected = Order & { aic_id: string };

const updateSchema = z.object({ action_taken: z.enum(['accepted', 'cancelled', 'changed']) });

/** Moves a local date-time (`YYYY-MM-DDTHH:MM:SS`, no zone) by minutes. */
const shiftLocal = (local: string, minutes: number) => new Date(Date.parse(`${local}Z`) + minutes * 60_000).toISOString().slice(0, 19);

export interface PlantOptions {
  /** Which of the order's slices the airline moves (0 by default). */
  sliceIndex?: number;
  /** By how much it moves each of the slice's flights (120 minutes later by default; negative: earlier). */
  shiftMinutes?: number;
  /** How the webhook is sent: once (the default), twice (the same event), or not yet (`deliverWebhook` sends it). */
  deliver?: 'once' | 'twice' | 'none';
}

/**
 * The airline's own changes to orders: planted by a test (the airline moved a flight), listed
 * per order, accepted through the API (the order then flies the new slice), and announced by
 * the webhook `order.airline_initiated_change_detected`.
 */
export class AirlineChanges {
  private readonly changes = new Map<string, AirlineInitiatedChange>();

  constructor(private readonly opts: { now: () => Date; flights: Flights; webhooks: WebhookSender }) {}

  private nowIso(): string {
    return this.opts.now().toISOString();
  }

  async plant(orderId: string, options: PlantOptions = {}): Promise<{ change: AirlineInitiatedChange; event: DuffelWebhookEvent<AirlineChangeDetected> }> {
    const record = this.opts.flights.currentOrder(orderId);
    const { order } = record;
    if (order.cancelled_at) throw invalidState('already_cancelled', 'Order already cancelled', 'The airline does not change a cancelled order.');
    const index = options.sliceIndex ?? 0;
    const slice = order.slices[index];
    if (!slice) throw validation('validation_format', 'slice_index', '/slice_index', `The order has ${order.slices.length} slice(s)`);
    const shift = options.shiftMinutes ?? 120;
    const moved: OrderSlice = {
      ...slice,
      id: newId('sli'),
      segments: slice.segments.map((seg) => ({
        ...seg,
        id: newId('seg'),
        departing_at: shiftLocal(seg.departing_at, shift),
        arriving_at: shiftLocal(seg.arriving_at, shift),
      })),
    };
    const now = this.nowIso();
    const change: AirlineInitiatedChange = {
      id: newId('aic'),
      order_id: order.id,
      action_taken: null,
      action_taken_at: null,
      added: [moved],
      removed: [slice],
      available_actions: ['accept', 'cancel', 'change', 'update'],
      created_at: now,
      updated_at: now,
      travel_agent_ticket: null,
    };
    this.changes.set(change.id, change);
    record.order = { ...order, synced_at: now, airline_initiated_changes: [...(order.airline_initiated_changes ?? []), change] };
    const event = this.opts.webhooks.record<AirlineChangeDetected>('order.airline_initiated_change_detected', change.id, {
      ...record.order,
      aic_id: change.id,
    });
    const times = options.deliver === 'twice' ? 2 : options.deliver === 'none' ? 0 : 1;
    for (let i = 0; i < times; i++) await this.opts.webhooks.deliver(event.id);
    return { change, event };
  }

  list(query: Record<string, string>): Page<AirlineInitiatedChange> {
    const all = [...this.changes.values()].filter((c) => !query.order_id || c.order_id === query.order_id);
    return paginate(all, query);
  }

  /** Accepts the change: the order flies the added slices instead of the removed ones. */
  accept(id: string): AirlineInitiatedChange {
    const change = this.changes.get(id);
    if (!change) throw notFound();
    if (!change.available_actions.includes('accept')) {
      throw invalidState('already_actioned', 'Action already taken', `This airline-initiated change has been ${change.action_taken ?? 'actioned'} already.`);
    }
    return this.take(change, 'accepted');
  }

  /** Records an action taken outside the API (Duffel's update, for changes it cannot accept itself). */
  update(id: string, data: unknown): AirlineInitiatedChange {
    const body = parseBody(updateSchema, data);
    const change = this.changes.get(id);
    if (!change) throw notFound();
    if (!change.available_actions.includes('update')) {
      throw invalidState('already_actioned', 'Action already taken', `This airline-initiated change has been ${change.action_taken ?? 'actioned'} already.`);
    }
    return this.take(change, body.action_taken);
  }

  private take(change: AirlineInitiatedChange, action: AirlineInitiatedChangeActionTaken): AirlineInitiatedChange {
    const now = this.nowIso();
    const taken: AirlineInitiatedChange = { ...change, action_taken: action, action_taken_at: now, available_actions: [], updated_at: now };
    this.changes.set(change.id, taken);
    const record = this.opts.flights.currentOrder(change.order_id);
    const removed = new Set(change.removed.map((s) => s.id));
    const slices =
      action === 'accepted'
        ? record.order.slices.flatMap((s) => (removed.has(s.id) ? (s.id === change.removed[0]?.id ? change.added : []) : [s]))
        : record.order.slices;
    record.order = {
      ...record.order,
      synced_at: now,
      slices,
      airline_initiated_changes: (record.order.airline_initiated_changes ?? []).map((c) => (c.id === change.id ? taken : c)),
    };
    return taken;
  }
}
