import { Runtime } from '@temporalio/worker';
import type { Config } from '../src/config';
import { dropBelowLogLevel, PinoTemporalLogger } from './logger';

/**
 * The Temporal Core runtime of a worker process, installed once, before the first
 * connection: the SDK's logs (and Core's warnings, forwarded) as pino JSON lines on stdout
 * at LOG_LEVEL, and — unless TEMPORAL_CORE_METRICS_PORT is 0 — its own Prometheus exporter
 * (worker metrics: task latencies, slots, pollers) on 127.0.0.1:TEMPORAL_CORE_METRICS_PORT,
 * which nobody scrapes directly: the process appends its text to the /metrics it serves
 * itself (the worker's metrics server, or the admin API in `npm start`). Returns the
 * exporter's URL, or undefined when it is off.
 */
export function installWorkerRuntime(config: Config): string | undefined {
  const bindAddress = config.TEMPORAL_CORE_METRICS_PORT === 0 ? undefined : `127.0.0.1:${config.TEMPORAL_CORE_METRICS_PORT}`;
  Runtime.install({
    logger: new PinoTemporalLogger(),
    telemetryOptions: {
      logging: { forward: {} },
      ...(bindAddress ? { metrics: { prometheus: { bindAddress, countersTotalSuffix: true, useSecondsForDurations: true } } } : {}),
    },
  });
  dropBelowLogLevel(Runtime.instance().logger);
  return bindAddress && `http://${bindAddress}/metrics`;
}
