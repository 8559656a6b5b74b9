/** The API's checks, src/health/api-checks.ts, for src/runtime/api-health.ts and test/support/stack.ts; goes when they import from there. */
export { apiHealthMonitor } from '../health/api-checks';
