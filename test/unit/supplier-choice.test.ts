import { suppliersFor } from '../../src/suppliers';

/** Which adapter serves what: new bookings go to the configured supplier, every booking to the one that holds it. */
describe('suppliersFor', () => {
  const simulatorUrl = 'http://127.0.0.1:1';

  it('sells new flights with the configured supplier and serves each booking with the one it was made with', () => {
    const both = suppliersFor({ simulatorUrl, hotels: 'simulator', flights: 'simulator', duffel: { token: 'duffel_test_x', apiUrl: 'http://127.0.0.1:2' } });
    expect(both.flightSupplier.name).toBe('simulator');
    expect(both.flightSupplierOf('simulator').name).toBe('simulator');
    expect(both.flightSupplierOf('duffel').name).toBe('duffel');

    const duffel = suppliersFor({ simulatorUrl, hotels: 'simulator', flights: 'duffel', duffel: { token: 'duffel_test_x' } });
    expect(duffel.flightSupplier.name).toBe('duffel');
    expect(duffel.flightSupplierOf('simulator').name).toBe('simulator');
  });

  it('says which supplier a booking needs when this process is not configured for it', () => {
    const simulatorOnly = suppliersFor({ simulatorUrl, hotels: 'simulator', flights: 'simulator' });
    expect(() => simulatorOnly.flightSupplierOf('duffel')).toThrow(/"duffel".*no configuration/);
    expect(() => simulatorOnly.hotelSupplierOf('duffel')).toThrow(/"duffel".*no configuration/);
    expect(simulatorOnly.hotelSupplierOf('simulator').name).toBe('simulator');
    expect(typeof simulatorOnly.flightAfterSaleOf('simulator').requestChange).toBe('function');
    expect(() => simulatorOnly.flightAfterSaleOf('duffel')).toThrow(/"duffel".*no configuration/);
    expect(() => suppliersFor({ simulatorUrl, hotels: 'simulator', flights: 'duffel' })).toThrow(/DUFFEL_ACCESS_TOKEN/);
  });
});
