/**
 * Port to whatever hands out phone numbers. The built-in implementation draws
 * from a Postgres sequence; a telephony provider (which may take seconds, so it
 * is never called inside a database transaction) can be plugged in instead.
 */
export interface PhoneNumberProvisioner {
  /** A number no live agent uses, reserved for a new agent of the account. */
  provision(request: { account_id: string; agent_id: string }): Promise<string>;
  /** Give a number back: its agent was deleted, moved to another number, or never got created. */
  release(phoneNumber: string): Promise<void>;
}

export const PHONE_NUMBER_PROVISIONER = Symbol('PhoneNumberProvisioner');
