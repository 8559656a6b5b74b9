import { DomainError } from '../../src/domain/errors';
import { applicationOfOrder, recordSubmission } from '../../src/domain/visa/applications';
import { visaWorkflowId, type VisaApplicationInput } from '../../workflows/visa.types';
import { confirming, type FinalizeDeps, type Finalizer } from './finalizer';

/** Visas: the agency takes the application; the embassy's decision follows in a workflow of its own. */
export const visaFinalizer = ({ db, visaAgency }: FinalizeDeps): Finalizer =>
  confirming(visaAgency, async (order) => {
    const application = await applicationOfOrder(db, order.id);
    if (!application) throw new DomainError('not_found', `no visa application for order ${order.id}`);
    return {
      request: { visa_id: application.visaProductId, applicant: application.applicant, travel: { from: application.travelFrom, to: application.travelTo } },
      record: async (c) => {
        await recordSubmission(db, application, c.reference);
        const args: VisaApplicationInput = { orderId: order.id, applicationId: application.id, sandbox: application.sandboxDecision };
        // After payment the application waits for the embassy in a workflow of its own.
        return { supplierRef: c.reference, followUp: { workflowType: 'visaApplication', workflowId: visaWorkflowId(order.id), args: [args] } };
      },
    };
  });
