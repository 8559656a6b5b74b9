/**
 * What a simulated supplier keeps of its bookings, in memory: each by its own id and by the
 * agent's client_reference (a repeated reference is the same request), and the open ones
 * (not yet made final) expiring lazily: `sweep` runs at the start of every synchronous
 * section, so state is current before use. And the two look-ups every supplier serves.
 */
import type { Hono } from 'hono';

export abstract class Records<T extends { client_reference: string; status: string }> {
  private readonly byId = new Map<string, T>();
  private readonly byReference = new Map<string, T>();
  /** Records that still may expire. */
  private readonly open = new Set<T>();

  /** `deadline`: when an open record expires. */
  constructor(private readonly deadline: (record: T) => number) {}

  /** Gives back what an expired or undone record held (seats, rooms), once. */
  protected abstract giveBack(record: T): void;

  /** Lazy expiry: run at the start of every synchronous section, so state is current before use. */
  sweep(now = Date.now()): void {
    for (const record of this.open) {
      if (now >= this.deadline(record)) this.giveUp(record, 'expired' as T['status']);
    }
  }

  /** A new open record. */
  protected add(id: string, record: T): void {
    this.byId.set(id, record);
    this.byReference.set(record.client_reference, record);
    this.open.add(record);
  }

  /** The record with this id, in the current state. */
  current(id: string): T | undefined {
    this.sweep();
    return this.byId.get(id);
  }

  byClientReference(reference: string | undefined): T | undefined {
    return reference ? this.byReference.get(reference) : undefined;
  }

  /** The record is made (ticketed, confirmed): it no longer expires. */
  protected close(record: T): void {
    this.open.delete(record);
  }

  /** An open record given up (expired, cancelled, released): it no longer expires, and what it held goes back. */
  protected giveUp(record: T, status: T['status']): void {
    record.status = status;
    this.close(record);
    this.giveBack(record);
  }
}

/** GET <path>?client_reference=… and GET <path>/:id: a record (called `noun`) in the current state, or 404. */
export function lookupRoutes<T extends { client_reference: string; status: string }>(
  app: Hono,
  path: string,
  noun: string,
  records: Records<T>,
  view: (record: T) => object,
): void {
  app.get(path, (c) => {
    records.sweep();
    const record = records.byClientReference(c.req.query('client_reference'));
    return record ? c.json(view(record)) : c.json({ error: `no ${noun} with this client_reference` }, 404);
  });
  app.get(`${path}/:id`, (c) => {
    const record = records.current(c.req.param('id'));
    return record ? c.json(view(record)) : c.json({ error: `unknown ${noun}` }, 404);
  });
}
