/** Visa products and applications. */
import { date, integer, jsonb, pgTable, serial, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import { personalData } from '../personal-data';
import { bookingTimes, money } from './columns';
import { orders } from './orders';
import { partnerRef } from './partners';

export const visaProducts = pgTable('visa_products', {
  id: serial('id').primaryKey(),
  code: text('code').notNull().unique(),
  country: text('country').notNull(),
  countryName: text('country_name').notNull(),
  visaType: text('visa_type').notNull(),
  title: text('title').notNull(),
  processingDays: integer('processing_days').notNull(),
  validityDays: integer('validity_days').notNull(),
  maxStayDays: integer('max_stay_days').notNull(),
  entries: text('entries').notNull(),
  serviceFee: money('service_fee_minor').notNull(),
  governmentFee: money('government_fee_minor').notNull(),
  refundOnRejectionPercent: integer('refund_on_rejection_percent').notNull(),
  requiredDocuments: jsonb('required_documents').$type<string[]>().notNull(),
  description: text('description').notNull(),
});

export const VISA_APPLICATION_STATUSES = ['draft', 'submitted', 'under_review', 'approved', 'rejected'] as const;

export const visaApplications = pgTable(
  'visa_applications',
  {
    id: serial('id').primaryKey(),
    partnerId: partnerRef(),
    visaProductId: integer('visa_product_id')
      .notNull()
      .references(() => visaProducts.id),
    orderId: integer('order_id').references(() => orders.id),
    applicant: personalData<Record<string, unknown>>('visa_applications', 'applicant').notNull(),
    travelFrom: date('travel_from').notNull(),
    travelTo: date('travel_to').notNull(),
    documents: personalData<Array<{ type: string; reference: string }>>('visa_applications', 'documents').notNull(),
    status: text('status', { enum: VISA_APPLICATION_STATUSES }).notNull().default('draft'),
    supplierReference: text('supplier_reference'),
    decisionReason: text('decision_reason'),
    decidedBy: text('decided_by'),
    decidedAt: timestamp('decided_at', { withTimezone: true }),
    // Sandbox only: the embassy's answer and how long it takes, fixed when the partner applies.
    sandboxDecision: jsonb('sandbox_decision').$type<{ approve: boolean; afterMs: number }>(),
    ...bookingTimes(),
  },
  (t) => [uniqueIndex('visa_applications_order_uq').on(t.orderId)],
);
