/** What the detectors find, in the order a category wins when two of them claim the same characters. */
export const PII_CATEGORIES = ['email', 'iban', 'ip_address', 'credit_card', 'ssn', 'phone_number', 'date_of_birth', 'postal_address'] as const;

export type PiiCategory = (typeof PII_CATEGORIES)[number];

/** A found piece of personal data: [start, end) in the text it was found in. */
export interface PiiSpan {
  start: number;
  end: number;
  category: PiiCategory;
}

/** What a span becomes in redacted text: `[CREDIT_CARD]`, `[PHONE_NUMBER]`… */
export function redactionLabel(category: PiiCategory): string {
  return `[${category.toUpperCase()}]`;
}
