/** The fare rules of a fare family as the airline words them: refund, change and no-show, with their penalties. */
import { FAMILIES, penalties, type FareFamily } from './pricing';

function percentText(percent: number): string {
  return `${percent}% of the base fare`;
}

export function fareRules(family: FareFamily, baseTotalMinor: number) {
  const rules = FAMILIES[family];
  const p = penalties(family, baseTotalMinor);
  const refundText = !rules.refundable
    ? 'Non-refundable fare: on cancellation the base fare is forfeited and only the taxes are refunded.'
    : rules.refund_percent === 0
      ? 'Fully refundable before departure, without penalty.'
      : `Refundable before departure; the penalty is ${percentText(rules.refund_percent)}. Taxes are refunded in full.`;
  const changeText =
    rules.change_percent === 0
      ? 'Date and flight changes are free before departure; any fare difference is charged.'
      : `Date and flight changes are allowed before departure for ${percentText(rules.change_percent)}, plus any fare difference.`;
  const noShowText =
    rules.no_show_percent === 0
      ? 'No penalty for a no-show; the unused ticket is refundable.'
      : `After a no-show ${percentText(rules.no_show_percent)} is forfeited; taxes are refunded.`;
  return {
    fare_family: family,
    refundable: rules.refundable,
    refund_penalty_minor: p.refund_minor,
    change_penalty_minor: p.change_minor,
    rules: [
      { category: 'refund' as const, allowed: true, penalty_minor: p.refund_minor, text: refundText },
      { category: 'change' as const, allowed: true, penalty_minor: p.change_minor, text: changeText },
      { category: 'no_show' as const, allowed: true, penalty_minor: p.no_show_minor, text: noShowText },
    ],
  };
}
