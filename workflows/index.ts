export { payOrder } from './pay.workflow';
export * from './pay.types';
