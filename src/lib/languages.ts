/**
 * The eight corridor languages the service speaks to people in (the agent's, the claim page's):
 * English, French, Swahili, Portuguese, Spanish, Hinglish, Nigerian Pidgin and Taglish.
 */
export const CORRIDOR_LANGUAGES = ['en', 'fr', 'sw', 'pt', 'es', 'hi', 'pcm', 'tl'] as const;
export type CorridorLanguage = (typeof CORRIDOR_LANGUAGES)[number];
