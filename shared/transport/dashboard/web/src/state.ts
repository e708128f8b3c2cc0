// The page's state between renders: a one-time notice for the sign-in page,
// the deployment's limits (read once after sign-in), the pollers of the page
// on screen, and the derived jobs made from each call (in localStorage, so
// they show again on the next visit).
import * as api from "./api/client";
import { clearSession, session } from "./api/session";
import type { Limits } from "./api/types";

export const signedIn = (): boolean => session() !== null;

let flash = "";

/** Leaves a notice for the next sign-in page. */
export function setFlash(text: string): void {
  flash = text;
}

/** Leaves a notice unless one is waiting already. */
export function setFlashIfEmpty(text: string): void {
  flash ||= text;
}

/** The waiting notice, once. */
export function takeFlash(): string {
  const f = flash;
  flash = "";
  return f;
}

let limitsLoaded: Limits | null = null;
let limitsLoading: Promise<Limits> | null = null;

/** The limits, if read already. */
export function currentLimits(): Limits | null {
  return limitsLoaded;
}

/** Reads GET /dashboard/limits once per sign-in; a failed read is tried again on the next call. */
export function loadLimits(): Promise<Limits> {
  limitsLoading ??= api.limits().then(
    (l) => (limitsLoaded = l),
    (e) => {
      limitsLoading = null;
      throw e;
    },
  );
  return limitsLoading;
}

/** Forgets the session and what was read with it. */
export function signOut(): void {
  clearSession();
  limitsLoaded = null;
  limitsLoading = null;
}

const stoppers: (() => void)[] = [];

/** Registers how to stop a poller of the page on screen. */
export function onLeave(stop: () => void): void {
  stoppers.push(stop);
}

/** Stops the pollers of the page being left. */
export function leavePage(): void {
  while (stoppers.length) stoppers.pop()!();
}

const derivedKey = (id: string) => "callscribe.derived." + id;

/** The summary and tags jobs made from a call in this browser. */
export function derivedJobs(callId: string): string[] {
  return JSON.parse(localStorage.getItem(derivedKey(callId)) ?? "[]");
}

export function rememberDerived(callId: string, jobId: string): void {
  const ids = derivedJobs(callId);
  if (!ids.includes(jobId)) ids.push(jobId);
  localStorage.setItem(derivedKey(callId), JSON.stringify(ids));
}
