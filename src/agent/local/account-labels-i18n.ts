import type { Lang } from './language.js';
import { wordTable } from '../../lib/word-table.js';

/**
 * The biller catalogue's account labels (data/billers.json `account.label`, lower-cased) in the
 * eight corridor languages, for the question "What's the {label} for {biller}?". A label not in
 * the table stays as written; a test holds every catalogue label to a row here.
 */
type Row = Readonly<Record<Exclude<Lang, 'en'>, string>>;

export const ACCOUNT_LABELS: Readonly<Record<string, Row>> = wordTable({
  'meter number': {
    pcm: 'meter number', sw: 'namba ya mita', fr: 'numéro de compteur', pt: 'número do medidor',
    es: 'número de medidor', hi: 'meter number', tl: 'numero ng metro',
  },
  'account number': {
    pcm: 'account number', sw: 'namba ya akaunti', fr: 'numéro de compte', pt: 'número da conta',
    es: 'número de cuenta', hi: 'account number', tl: 'numero ng account',
  },
  'customer number': {
    pcm: 'customer number', sw: 'namba ya mteja', fr: 'numéro client', pt: 'número do cliente',
    es: 'número de cliente', hi: 'customer number', tl: 'numero ng customer',
  },
  'iuc number': {
    pcm: 'IUC number', sw: 'namba ya IUC', fr: 'numéro IUC', pt: 'número IUC', es: 'número IUC', hi: 'IUC number', tl: 'numero ng IUC',
  },
  'phone number': {
    pcm: 'phone number', sw: 'namba ya simu', fr: 'numéro de téléphone', pt: 'número de telefone',
    es: 'número de teléfono', hi: 'phone number', tl: 'numero ng telepono',
  },
  'smartcard number': {
    pcm: 'smartcard number', sw: 'namba ya smartcard', fr: 'numéro de carte (smartcard)', pt: 'número do smartcard',
    es: 'número de tarjeta (smartcard)', hi: 'smartcard number', tl: 'numero ng smartcard',
  },
  // The builder's own label when the biller is not in the catalogue (build-bill.ts).
  'meter, smartcard or phone number': {
    pcm: 'meter, smartcard or phone number', sw: 'namba ya mita, smartcard au simu', fr: 'numéro de compteur, de carte ou de téléphone',
    pt: 'número do medidor, do smartcard ou do telefone', es: 'número de medidor, de tarjeta o de teléfono',
    hi: 'meter, smartcard ya phone number', tl: 'numero ng metro, smartcard o telepono',
  },
});

/** `label` (English, as the catalogue writes it) in `lang`, or as written when the table lacks it. */
export function accountLabel(label: string, lang: Lang): string {
  if (lang === 'en') return label;
  return ACCOUNT_LABELS[label.trim().toLowerCase()]?.[lang] ?? label;
}
