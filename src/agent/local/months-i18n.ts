/**
 * Month names of the corridor languages besides English (dates.ts reads "15 de diciembre",
 * "20 décembre", "5 de dezembro", "tarehe 3 Desemba"). Accented and plain forms both.
 */
const SPEC: readonly (readonly string[])[] = [
  ['janvier', 'enero', 'janeiro', 'januari'],
  ['février', 'fevrier', 'febrero', 'fevereiro', 'februari', 'pebrero'],
  ['mars', 'marzo', 'março', 'marco', 'machi', 'marso'],
  ['avril', 'abril', 'aprili'],
  ['mai', 'mayo', 'maio', 'mei'],
  ['juin', 'junio', 'junho', 'juni', 'hunyo'],
  ['juillet', 'julio', 'julho', 'julai', 'hulyo'],
  ['août', 'aout', 'agosto', 'agosti'],
  ['septembre', 'septiembre', 'setiembre', 'setembro', 'septemba', 'setyembre'],
  ['octobre', 'octubre', 'outubro', 'oktoba', 'oktubre'],
  ['novembre', 'noviembre', 'novembro', 'novemba', 'nobyembre'],
  ['décembre', 'decembre', 'diciembre', 'dezembro', 'desemba', 'disyembre'],
];

export const FOREIGN_MONTHS: Readonly<Record<string, number>> = Object.fromEntries(SPEC.flatMap((names, i) => names.map((n) => [n, i + 1])));
