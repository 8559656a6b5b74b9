import type { CatalogueDeps } from '../money/markup-rules';
import type { Client } from '@temporalio/client';
import type { Db } from '../../db/client';
import { visaDecisionSignal, visaWorkflowId, type VisaDecision } from '../../../workflows/visa.types';
import { DomainError, notFound, workflowAnswer } from '../errors';
import { isStorableId } from '../ids';
import { getOrder, serviceOrderOf, type OrderRow } from '../orders';
import type { Partner } from '../partners';
import { awaitWorkflow } from '../../temporal/workflows';
import type { Workflows } from '../../../workflows/registry.types';
import { applicationOfOrder, createApplication, type VisaApplicationRow, type VisaDecisionResult, type VisaRequest } from './applications';

/** A visa application with the travel order it is paid through. */
export interface VisaOrder {
  order: OrderRow;
  application: VisaApplicationRow;
}

/** POST /api/visa/request/. */
export async function requestVisa(
  db: Db,
  partner: Partner,
  req: VisaRequest,
  pricing: CatalogueDeps,
  sandbox: { approve: boolean; afterMs: number } | null,
): Promise<VisaOrder> {
  return createApplication(db, partner.id, req, pricing, new Date(), sandbox);
}

/** GET /api/visa/requests/{order_id}/ (extension): where the application stands. */
export async function applicationStatus(db: Db, partner: Partner, orderId: number): Promise<VisaOrder> {
  const order = await serviceOrderOf(db, partner.id, orderId, 'visa', 'read');
  const application = await applicationOfOrder(db, order.id);
  return { order, application: application! };
}

/** An operator relays the embassy's decision to the application's workflow, and waits for it to be recorded. */
export async function relayVisaDecision(
  deps: { db: Db; temporal: Client; waitMs: number },
  orderId: number,
  decision: VisaDecision,
): Promise<{ order: OrderRow; result: VisaDecisionResult | null }> {
  const order = isStorableId(orderId) ? await getOrder(deps.db, orderId) : undefined;
  if (!order || order.service !== 'visa') throw notFound(`visa order ${orderId}`);
  const application = await applicationOfOrder(deps.db, orderId);
  if (!application || (application.status !== 'submitted' && application.status !== 'under_review')) {
    throw new DomainError('validation', `order ${orderId}: the application is ${application?.status ?? 'missing'}, not under review (is it paid?)`);
  }
  const handle = deps.temporal.workflow.getHandle<Workflows['visaApplication']>(visaWorkflowId(orderId));
  await handle.signal(visaDecisionSignal, decision);
  return { order, result: await awaitWorkflow(handle, deps.waitMs, workflowAnswer('everyWorkflow')) };
}
