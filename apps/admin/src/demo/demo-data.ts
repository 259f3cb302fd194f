/** Deterministic pseudo-random numbers, so a demo seed is reproducible for a given seed value. */
export function createRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export const pick = <T>(random: () => number, items: readonly T[]): T =>
  items[Math.floor(random() * items.length)];

export const FIRST_NAMES = [
  'Anna',
  'Ben',
  'Clara',
  'David',
  'Elena',
  'Felix',
  'Greta',
  'Hugo',
  'Ida',
  'Jonas',
  'Lea',
  'Max',
  'Nora',
  'Oskar',
  'Paula',
  'Sara',
  'Tom',
  'Zoe',
] as const;
export const LAST_NAMES = [
  'Becker',
  'Fischer',
  'Hoffmann',
  'Klein',
  'Koch',
  'Meyer',
  'Müller',
  'Richter',
  'Schmidt',
  'Schneider',
  'Wagner',
  'Weber',
  'Wolf',
] as const;
export const CITIES = [
  { city: 'Berlin', postalCode: '10115', country: 'DE' },
  { city: 'Hamburg', postalCode: '20095', country: 'DE' },
  { city: 'Munich', postalCode: '80331', country: 'DE' },
  { city: 'Vienna', postalCode: '1010', country: 'AT' },
  { city: 'Zurich', postalCode: '8001', country: 'CH' },
] as const;
export const UTM_SOURCES = ['facebook', 'google', 'instagram', 'newsletter', 'linkedin', 'tiktok'] as const;
