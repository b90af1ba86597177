import { describe, expect, it } from '@jest/globals';
import { accountCallEventSubject, CALL_EVENT_TYPES, callEventSubject, callEventSubjectAccount, namespacedSubject } from '@voice/contracts';

describe('call-event subjects', () => {
  it.each([undefined, 't0a1b2c3d4e'])('reads back the account of call_events.<account_id>.<type> (namespace %s)', (namespace) => {
    for (const type of CALL_EVENT_TYPES) {
      expect(callEventSubjectAccount(namespace, namespacedSubject(namespace, accountCallEventSubject('acct_0123456789abcdef01234567', type)))).toBe('acct_0123456789abcdef01234567');
      expect(callEventSubjectAccount(namespace, namespacedSubject(namespace, accountCallEventSubject('2f1c9a3e-0b7d-4c61-9d0e-6a8b5f4e3c21', type)))).toBe('2f1c9a3e-0b7d-4c61-9d0e-6a8b5f4e3c21');
      // The unscoped form names no account: every event type starts with `call.`.
      expect(callEventSubjectAccount(namespace, namespacedSubject(namespace, callEventSubject(type)))).toBeUndefined();
    }
  });

  it('names no account for a subject outside the namespace\'s call events', () => {
    expect(callEventSubjectAccount('ns1', 'ns2.call_events.acct_1.call.started')).toBeUndefined();
    expect(callEventSubjectAccount(undefined, 'call_events.acct_1')).toBeUndefined();
  });
});
