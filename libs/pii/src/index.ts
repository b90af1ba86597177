export { findPii, redactPii } from './find-pii.js';
export { PII_CATEGORIES, redactionLabel, type PiiCategory, type PiiSpan } from './pii-categories.js';
export { normaliseSpokenDigits, sourceRange, type NormalisedText } from './spoken-digits.js';
export { isCardNumber, isSocialSecurityNumber, luhnValid } from './numbers.rules.js';
export { scoreDetections, type CategoryScore, type LabelledUtterance } from './scoring.js';
