import { registryFor, renderMetrics } from '../../src/metrics';
import { typedFamilies } from '../support/metrics';

describe('which process serves which series', () => {
  const families = async (role: Parameters<typeof registryFor>[0]) => typedFamilies(await renderMetrics(registryFor(role)));

  it('gives the API its HTTP series and the worker its saga series, and npm start both, each once', async () => {
    const api = await families('api');
    const worker = await families('worker');
    const all = await families('all-in-one');
    expect(api).toEqual(expect.arrayContaining(['http_request_duration_seconds', 'pay_outcomes_total', 'payments_needs_attention', 'process_cpu_seconds_total']));
    expect(api).not.toContain('saga_compensations_total');
    expect(worker).toEqual(expect.arrayContaining(['saga_compensations_total', 'wallet_debit_duration_seconds', 'process_cpu_seconds_total']));
    expect(worker).not.toContain('http_request_duration_seconds');
    expect(new Set(all).size).toBe(all.length);
    expect([...all].sort()).toEqual([...new Set([...api, ...worker])].sort());
  });
});
