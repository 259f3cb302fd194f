const BASE64URL = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

/** An RS256 token with every value of the four bits its signature's last base64url character leaves unused. */
export function signatureSpellings(token: string): string[] {
  const head = token.slice(0, -1);
  const last = BASE64URL.indexOf(token.slice(-1));
  // 256 signature bytes are 342 characters: the last holds 2 bits of the signature and 4 unused.
  const length = token.split('.')[2]?.length;
  if (length !== 342) throw new Error(`expected an RS256 signature of 342 characters, got ${length}`);
  return Array.from({ length: 16 }, (_, bits) => head + BASE64URL[(last & 0b110000) | bits]);
}
