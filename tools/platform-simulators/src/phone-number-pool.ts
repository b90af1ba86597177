import { randomInt } from 'node:crypto';

/** Areas a number comes from when the buyer names none. */
const ANY_AREA = ['212', '312', '415', '512', '646', '720'];

/**
 * Hands out North American numbers that were never handed out before by this simulator, so a bought
 * number is always "fresh" even after a release (a released number is not sold again).
 */
export class PhoneNumberPool {
  private readonly issued = new Set<string>();

  /** Every number handed out so far (a state file keeps them, so a restart never sells one again). */
  issuedNumbers(): string[] {
    return [...this.issued];
  }

  restore(numbers: readonly string[]): void {
    for (const number of numbers) this.issued.add(number);
  }

  issue(areaCode: string | undefined, isRegistered: (number: string) => boolean): string {
    const area = areaCode ?? ANY_AREA[randomInt(ANY_AREA.length)];
    for (;;) {
      // Exchange 200–999 (a leading 0 or 1 is not a valid NANP exchange), then four line digits.
      const number = `+1${area}${randomInt(200, 1000)}${String(randomInt(10_000)).padStart(4, '0')}`;
      if (this.issued.has(number) || isRegistered(number)) continue;
      this.issued.add(number);
      return number;
    }
  }
}
