/**
 * Decimal strings without floating point: amounts from chat stay exact ("2.5m" is
 * "2500000", never 2499999.9999).
 */

/** "0005", "50" -> "5.5"; strips leading zeros of the integer part and trailing zeros of the fraction. */
export function normalizeDecimal(intPart: string, fracPart = ''): string {
  const i = intPart.replace(/^0+(?=\d)/, '') || '0';
  const f = fracPart.replace(/0+$/, '');
  return f ? `${i}.${f}` : i;
}

/** Multiplies a decimal string by 10^places by moving the point ("1.2", 3 -> "1200"). */
export function shiftDecimal(value: string, places: number): string {
  const [intPart = '0', fracPart = ''] = value.split('.');
  const digits = intPart + fracPart;
  const point = intPart.length + places;
  if (point >= digits.length) return normalizeDecimal(digits.padEnd(point, '0'));
  return normalizeDecimal(digits.slice(0, point), digits.slice(point));
}

/** Integer digits of a decimal string, to check the 12-digit limit of DecimalAmount. */
export function integerDigits(value: string): number {
  return (value.split('.')[0] ?? '').length;
}
