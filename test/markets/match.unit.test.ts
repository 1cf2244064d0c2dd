import { describe, expect, it } from 'vitest';
import { matchOutcome, questionMatches } from '../../src/markets/match.js';

describe('market references', () => {
  it('matches significant words of the question, whole or as a prefix', () => {
    const q = 'Will it rain in Nairobi tomorrow?';
    expect(questionMatches('rain', q)).toBe(true);
    expect(questionMatches('the Nairobi rain market', q)).toBe(true);
    expect(questionMatches('nairo', q)).toBe(true);
    expect(questionMatches('rain in Lagos', q)).toBe(false);
    expect(questionMatches('the market', q)).toBe(false);
    expect(questionMatches('ra', q)).toBe(false);
  });

  it('issue 20: a reference in another language finds the question by shared names and the cross-language word map', () => {
    const rain = 'Will it rain in Nairobi on Saturday?';
    expect(questionMatches('mvua Nairobi', rain)).toBe(true);
    expect(questionMatches('mvua', rain)).toBe(true);
    expect(questionMatches('pluie Nairobi', rain)).toBe(true);
    expect(questionMatches('baarish Nairobi', rain)).toBe(true);
    expect(questionMatches('ulan sa Nairobi', rain)).toBe(false); // "sa" is no word of the question and means nothing mapped
    expect(questionMatches('mvua Lagos', rain)).toBe(false);
    expect(questionMatches('mechi Nairobi', rain)).toBe(false);
    const gilas = 'Will Gilas Pilipinas beat Japan on Sunday?';
    expect(questionMatches('Gilas Hapon', gilas)).toBe(true);
    expect(questionMatches('Brasil Hapon', gilas)).toBe(false);
    expect(questionMatches('CAN Sénégal', 'Le Sénégal va-t-il gagner la CAN ?')).toBe(true);
    expect(questionMatches('uchaguzi Kenya', 'Will Ruto win the Kenya election?')).toBe(true);
  });

  it('finds outcomes case-insensitively, or by a unique prefix', () => {
    expect(matchOutcome(['Yes', 'No'], 'yes')).toBe(0);
    expect(matchOutcome(['Yes', 'No'], 'N')).toBe(1);
    expect(matchOutcome(['Arsenal', 'Aston Villa', 'Chelsea'], 'a')).toBeUndefined();
    expect(matchOutcome(['Arsenal', 'Aston Villa', 'Chelsea'], 'ars')).toBe(0);
    expect(matchOutcome(['Yes', 'No'], 'maybe')).toBeUndefined();
  });

  it('reads yes and no in every corridor language against the market\'s own labels (issue 20)', () => {
    expect(matchOutcome(['Yes', 'No'], 'Sí')).toBe(0);
    expect(matchOutcome(['Yes', 'No'], 'Ndiyo')).toBe(0);
    expect(matchOutcome(['Yes', 'No'], 'Haan')).toBe(0);
    expect(matchOutcome(['Yes', 'No'], 'Oo')).toBe(0);
    expect(matchOutcome(['Yes', 'No'], 'Hapana')).toBe(1);
    expect(matchOutcome(['Yes', 'No'], 'Nahi')).toBe(1);
    expect(matchOutcome(['Sim', 'Não'], 'No')).toBe(1);
    expect(matchOutcome(['Sim', 'Não'], 'Yes')).toBe(0);
    expect(matchOutcome(['Oui', 'Non'], 'Hindi')).toBe(1);
    expect(matchOutcome(['Sí', 'No'], 'si')).toBe(0);
    // Only a yes/no market: "Sí" names no outcome of a Nigeria/Senegal market.
    expect(matchOutcome(['Nigeria', 'Senegal'], 'Sí')).toBeUndefined();
  });

  it('names an outcome whatever accents the writer typed or left out (issue 23, corridor set)', () => {
    expect(matchOutcome(['Nigeria', 'Senegal'], 'Sénégal')).toBe(1);
    expect(matchOutcome(['Sim', 'Não'], 'nao')).toBe(1);
    expect(matchOutcome(['Oui', 'Non'], 'OUI')).toBe(0);
    // Two labels alike once the accents go: neither is named.
    expect(matchOutcome(['Pelé', 'Pele'], 'pele')).toBe(1);
    expect(matchOutcome(['Pelé', 'Pele', 'Zico'], 'pelê')).toBeUndefined();
  });
});
