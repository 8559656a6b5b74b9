import { defaultAllotment } from './inventory';

/**
 * Rooms left per (hotel, room type, night), in memory. Nights nobody has touched hold the
 * deterministic default. Every method is synchronous, so a check and its decrement cannot
 * interleave with another request: two holds for the last room get one room between them.
 */
export class AllotmentBook {
  private readonly nights = new Map<string, number>();
  /** A count set through the control API replaces the default for every night of the room. */
  private readonly overrides = new Map<string, number>();
  /**
   * Bumped by the control API: rooms taken before a reset are not given back after it, so
   * "set to N" means exactly N rooms are available whatever holds were open at the time.
   */
  private readonly epochs = new Map<string, number>();

  private static roomKey(hotelId: number, roomCode: string): string {
    return `${hotelId}|${roomCode}`;
  }

  available(hotelId: number, roomCode: string, night: string): number {
    const room = AllotmentBook.roomKey(hotelId, roomCode);
    return this.nights.get(`${room}|${night}`) ?? this.overrides.get(room) ?? defaultAllotment(hotelId, roomCode, night);
  }

  /** The fewest rooms left on any night of the stay. */
  minAvailable(hotelId: number, roomCode: string, nights: string[]): number {
    return Math.min(...nights.map((n) => this.available(hotelId, roomCode, n)));
  }

  /** Takes `count` rooms on every night, all or nothing; the epoch to give them back with, or null. */
  take(hotelId: number, roomCode: string, nights: string[], count: number): number | null {
    if (this.minAvailable(hotelId, roomCode, nights) < count) return null;
    const room = AllotmentBook.roomKey(hotelId, roomCode);
    for (const night of nights) this.nights.set(`${room}|${night}`, this.available(hotelId, roomCode, night) - count);
    return this.epochs.get(room) ?? 0;
  }

  giveBack(hotelId: number, roomCode: string, nights: string[], count: number, epoch: number): void {
    const room = AllotmentBook.roomKey(hotelId, roomCode);
    if ((this.epochs.get(room) ?? 0) !== epoch) return;
    for (const night of nights) this.nights.set(`${room}|${night}`, this.available(hotelId, roomCode, night) + count);
  }

  set(hotelId: number, roomCode: string, count: number): void {
    const room = AllotmentBook.roomKey(hotelId, roomCode);
    for (const key of [...this.nights.keys()]) if (key.startsWith(`${room}|`)) this.nights.delete(key);
    this.overrides.set(room, count);
    this.epochs.set(room, (this.epochs.get(room) ?? 0) + 1);
  }
}
