/**
 * The engine's database: every table, by area (docs/decisions/code-structure.md). Code
 * imports it whole from `src/db/schema`; drizzle-kit reads it from here (drizzle.config.ts).
 */
export type { ActorRecord } from '../../platform/actor';
export * from './partners';
export * from './console';
export * from './operations';
export * from './orders';
export * from './pricing';
export * from './exchange-rates';
export * from './wallets';
export * from './books';
export * from './products';
export * from './hotels';
export * from './flights';
export * from './tours';
export * from './residence';
export * from './visa';
export * from './suppliers';
export * from './events';
export * from './documents';
