/** The health model, src/health/model.ts, for the importers outside src/http not yet pointed there; goes with them. */
export * from './health/model';
