import { PII_CATEGORIES, type PiiCategory, type PiiSpan } from './pii-categories.js';

/** One line of the labelled corpus: what was said and where its personal data is. */
export interface LabelledUtterance {
  id: string;
  text: string;
  spans: PiiSpan[];
}

export interface CategoryScore {
  category: PiiCategory;
  /** Labelled spans of the category in the corpus. */
  labelled: number;
  /** Spans the detector reported for the category. */
  predicted: number;
  /** Reported spans that overlap a labelled span of the same category. */
  correctPredictions: number;
  /** Labelled spans that a reported span of the same category overlaps. */
  found: number;
  precision: number;
  recall: number;
}

const overlaps = (a: PiiSpan, b: PiiSpan) => a.category === b.category && a.start < b.end && b.start < a.end;

/**
 * Span-level precision and recall per category: a reported span is right when it overlaps a labelled span of the
 * same category (boundaries may differ: "at 12 Main Street" and "12 Main Street" are the same find). With nothing
 * reported precision is 1; with nothing labelled recall is 1.
 */
export function scoreDetections(corpus: LabelledUtterance[], detect: (text: string) => PiiSpan[]): CategoryScore[] {
  const totals = new Map(PII_CATEGORIES.map((category) => [category, { labelled: 0, predicted: 0, correctPredictions: 0, found: 0 }]));
  for (const utterance of corpus) {
    const predicted = detect(utterance.text);
    for (const span of predicted) {
      const total = totals.get(span.category);
      if (!total) continue;
      total.predicted++;
      if (utterance.spans.some((label) => overlaps(span, label))) total.correctPredictions++;
    }
    for (const label of utterance.spans) {
      const total = totals.get(label.category)!;
      total.labelled++;
      if (predicted.some((span) => overlaps(span, label))) total.found++;
    }
  }
  return PII_CATEGORIES.map((category) => {
    const t = totals.get(category)!;
    return {
      category,
      ...t,
      precision: t.predicted === 0 ? 1 : t.correctPredictions / t.predicted,
      recall: t.labelled === 0 ? 1 : t.found / t.labelled,
    };
  });
}
