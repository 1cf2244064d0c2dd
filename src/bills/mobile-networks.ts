/**
 * Which mobile network a phone number belongs to, from its prefix, for the catalogue's
 * countries: an airtime or data purchase that names no network goes to the number's own.
 * Ported numbers keep their old prefix; the biller rejects a wrong network at payment time.
 */
import { splitPhone } from '../lib/phone.js';

type Network = 'mtn' | 'airtel' | 'glo' | '9mobile' | 'safaricom' | 'telkom' | 'telecel' | 'airteltigo' | 'vodacom' | 'cellc';

/** National significant prefixes (after the leading 0 / country code). */
const PREFIXES: Readonly<Record<string, ReadonlyArray<[string, Network]>>> = {
  NG: [
    ...['803', '806', '703', '706', '813', '816', '810', '814', '903', '906', '913', '916', '704', '707'].map((p) => [p, 'mtn'] as [string, Network]),
    ...['802', '808', '708', '812', '701', '902', '907', '901', '904', '912', '911'].map((p) => [p, 'airtel'] as [string, Network]),
    ...['805', '807', '705', '815', '811', '905', '915'].map((p) => [p, 'glo'] as [string, Network]),
    ...['809', '817', '818', '909', '908'].map((p) => [p, '9mobile'] as [string, Network]),
  ],
  KE: [
    ...['70', '71', '72', '740', '741', '742', '743', '745', '746', '748', '757', '758', '759', '768', '769', '79', '110', '111', '112', '113', '114', '115'].map((p) => [p, 'safaricom'] as [string, Network]),
    ...['73', '750', '751', '752', '753', '754', '755', '756', '762', '78', '100', '101', '102'].map((p) => [p, 'airtel'] as [string, Network]),
    ...['77'].map((p) => [p, 'telkom'] as [string, Network]),
  ],
  GH: [
    ...['24', '54', '55', '59', '25', '53'].map((p) => [p, 'mtn'] as [string, Network]),
    ...['20', '50'].map((p) => [p, 'telecel'] as [string, Network]),
    ...['26', '56', '27', '57'].map((p) => [p, 'airteltigo'] as [string, Network]),
  ],
  ZA: [
    ...['82', '72', '76', '79', '71', '60', '66'].map((p) => [p, 'vodacom'] as [string, Network]),
    ...['83', '73', '78', '63', '61'].map((p) => [p, 'mtn'] as [string, Network]),
    ...['84', '74', '62', '65'].map((p) => [p, 'cellc'] as [string, Network]),
    ...['81', '67'].map((p) => [p, 'telkom'] as [string, Network]),
  ],
};

/** Biller ids per country, network and category. */
const BILLER_IDS: Readonly<Record<string, Partial<Record<Network, { airtime: string; internet?: string }>>>> = {
  NG: { mtn: { airtime: 'ng-mtn-airtime', internet: 'ng-mtn-data' }, airtel: { airtime: 'ng-airtel-airtime' }, glo: { airtime: 'ng-glo-airtime' }, '9mobile': { airtime: 'ng-9mobile-airtime' } },
  KE: { safaricom: { airtime: 'ke-safaricom-airtime', internet: 'ke-safaricom-data' }, airtel: { airtime: 'ke-airtel-airtime' }, telkom: { airtime: 'ke-telkom-airtime' } },
  GH: { mtn: { airtime: 'gh-mtn-airtime' }, telecel: { airtime: 'gh-telecel-airtime' }, airteltigo: { airtime: 'gh-airteltigo-airtime' } },
  ZA: { vodacom: { airtime: 'za-vodacom-airtime' }, mtn: { airtime: 'za-mtn-airtime' }, cellc: { airtime: 'za-cellc-airtime' }, telkom: { airtime: 'za-telkom-airtime' } },
};

/**
 * The airtime (or data) biller of a phone number's network, or undefined when the number's
 * country or prefix is not one the catalogue serves. A national number needs a country.
 */
export function billerForPhone(raw: string, category: 'airtime' | 'internet', country?: string): string | undefined {
  const p = splitPhone(raw, country);
  if (!p) return undefined;
  const table = PREFIXES[p.country];
  if (!table) return undefined;
  const hit = [...table].sort((a, b) => b[0].length - a[0].length).find(([prefix]) => p.national.startsWith(prefix));
  if (!hit) return undefined;
  const ids = BILLER_IDS[p.country]?.[hit[1]];
  if (!ids) return undefined;
  return category === 'internet' ? ids.internet : ids.airtime;
}

/** Countries a national number may belong to, tried in order: the message's currency country, then the user's. */
export function phoneCountryCandidates(...countries: Array<string | undefined>): string[] {
  return [...new Set(countries.filter((c): c is string => Boolean(c)))];
}
