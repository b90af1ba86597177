import type { DataSource } from 'typeorm';
import { phoneNumberHeld } from '../agent/agent.store.js';
import type { PhoneNumberProvisioner } from './phone-number-provisioner.js';

/** +1 555 xxx xxxx: the 555 exchange keeps built-in numbers recognisably fictional. */
const PREFIX = '+1555';

/**
 * Built-in provisioner: numbers come from a cycling sequence and any number a
 * live agent holds is skipped. Releasing needs no bookkeeping: a deleted agent
 * drops out of the partial unique index, so its number is free again.
 */
export class SequencePhoneNumberProvisioner implements PhoneNumberProvisioner {
  constructor(private readonly dataSource: DataSource, private readonly maxAttempts = 1000) {}

  async provision(): Promise<string> {
    for (let attempt = 0; attempt < this.maxAttempts; attempt++) {
      const [{ n }] = await this.dataSource.query<Array<{ n: string }>>(`SELECT nextval('agents.provisioned_number_seq')::text AS n`);
      const number = `${PREFIX}${n.padStart(7, '0')}`;
      if (!(await phoneNumberHeld(this.dataSource, number))) return number;
    }
    throw new Error('no free phone number could be provisioned');
  }

  async release(): Promise<void> {}
}
