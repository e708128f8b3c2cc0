// Checks the page makes before sending a form (the service checks again and
// its answer is shown). Pure functions, unit-tested in test/validate.test.ts.

/** Why a callback URL cannot be sent, or null when it can: an absolute http or https URL with a host. */
export function callbackUrlProblem(text: string): string | null {
  let u: URL;
  try {
    u = new URL(text);
  } catch {
    return "Enter a full URL such as https://example.com/hook.";
  }
  if (u.protocol !== "https:" && u.protocol !== "http:") return "The callback URL must start with https:// (or http://).";
  if (!u.hostname) return "The callback URL must name a host.";
  return null;
}

/** Whether a file name is one the service takes (MP3 or WAV), for picking the recordings out of a dropped folder. */
export function isAudioName(name: string): boolean {
  return /\.(mp3|wav)$/i.test(name);
}
