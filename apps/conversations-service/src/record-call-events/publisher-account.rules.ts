/**
 * A call event published on an account's subject (`call_events.<account_id>.<type>`) may only be
 * about that account's agents. The NATS server lets a publisher scoped to one account publish only
 * that account's subjects, but the event's agent id is in its body, which the server does not read:
 * this rule is what keeps such a publisher from writing calls into another account.
 */
export function publisherAccountMustOwnAgent(publisherAccount: string | undefined, agentAccount: string): string | undefined {
  if (publisherAccount === undefined || publisherAccount === agentAccount) return undefined;
  return `published for account ${publisherAccount}, but its agent belongs to another account`;
}

/**
 * The unscoped subject `call_events.<type>` names no account. Accepted unless the deployment says
 * every publisher is scoped (CALL_EVENTS_REQUIRE_ACCOUNT_SUBJECT): then only a subject naming the
 * account is trusted, whoever could still publish the old form.
 */
export function subjectMustNameAccount(publisherAccount: string | undefined, required: boolean): string | undefined {
  return required && publisherAccount === undefined ? 'the subject names no account (call_events.<account_id>.<type> is required)' : undefined;
}
