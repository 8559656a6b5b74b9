import { setWorkflowOptions } from '@temporalio/workflow';
import * as agency from './agency.workflows';
import * as flight from './flight.workflows';
import * as flightChange from './flight-change.workflow';
import * as hotel from './hotel.workflows';
import * as pay from './pay.workflow';
import * as residence from './residence.workflows';
import * as scheduleChange from './schedule-change.workflow';
import * as tour from './tour.workflows';
import { VERSIONING_BEHAVIOR } from './versioning';
import * as visa from './visa.workflows';
import * as webhook from './webhook.workflows';

// The workflow modules export their workflows and nothing else (registry.check.ts holds them to registry.types.ts).
export * from './pay.workflow';
export * from './hotel.workflows';
export * from './flight.workflows';
export * from './flight-change.workflow';
export * from './tour.workflows';
export * from './visa.workflows';
export * from './residence.workflows';
export * from './agency.workflows';
export * from './webhook.workflows';
export * from './schedule-change.workflow';
export * from './pay.types';
export * from './hotel.types';
export * from './flight.types';
export * from './flight-change.types';
export * from './visa.types';
export * from './residence.types';
export * from './webhook.types';
export * from './schedule-change.types';

// Each type's versioning behaviour is part of its definition, read by the worker when it registers it.
const registered = { ...agency, ...flight, ...flightChange, ...hotel, ...pay, ...residence, ...tour, ...visa, ...webhook, ...scheduleChange };
for (const [type, versioningBehavior] of Object.entries(VERSIONING_BEHAVIOR)) {
  setWorkflowOptions({ versioningBehavior }, registered[type as keyof typeof VERSIONING_BEHAVIOR] as (...args: never[]) => Promise<unknown>);
}
