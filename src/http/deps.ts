import type { Client } from '@temporalio/client';
import type { Db } from '../db/client';
import type { HotelSupplier } from '../suppliers/hotels';

export interface HealthReport {
  ok: boolean;
  checks: Record<string, { ok: boolean; detail?: string }>;
}

/** What the HTTP layer needs; built once by the process entry point (or by a test). */
export interface ApiDeps {
  db: Db;
  temporal: Client;
  taskQueue: string;
  payWaitMs: number;
  sandbox: boolean;
  currency: string;
  hotelSupplier: HotelSupplier;
  health: () => Promise<HealthReport>;
}
