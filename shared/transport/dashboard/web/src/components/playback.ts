import { clampTime } from "../timeline";

/**
 * The review's audio position, shared by the timeline and the transcript:
 * seek() works before the audio's metadata has loaded (the seek waits for it),
 * and every view registered with onTime() hears each new position: on seeks,
 * on the player's timeupdate, and each animation frame while playing, so the
 * play head and the spoken word move smoothly.
 */
export class Playback {
  private pending: number | null = null;
  private listeners: ((t: number) => void)[] = [];
  private frame = 0;

  constructor(
    readonly audio: HTMLAudioElement,
    /** The call's length from its result; the player's own once known. */
    private knownLength: number,
  ) {
    audio.addEventListener("loadedmetadata", () => {
      if (this.pending !== null) {
        audio.currentTime = clampTime(this.pending, this.length());
        this.pending = null;
      }
      this.notify();
    });
    for (const ev of ["timeupdate", "seeked", "seeking"]) audio.addEventListener(ev, () => this.notify());
    audio.addEventListener("play", () => this.loop());
  }

  /** The call's length in seconds (0 when not known). */
  length(): number {
    const d = this.audio.duration;
    return Number.isFinite(d) && d > 0 ? d : this.knownLength;
  }

  /** Where the audio is, or will be once it can seek. */
  time(): number {
    return this.pending ?? this.audio.currentTime;
  }

  seek(t: number): void {
    const to = clampTime(t, this.length());
    if (this.audio.readyState >= HTMLMediaElement.HAVE_METADATA) this.audio.currentTime = to;
    else this.pending = to;
    this.notify();
  }

  /** Seeks and plays (a click on a turn or a word); a refused play (no gesture yet) leaves the audio paused there. */
  playFrom(t: number): void {
    this.seek(t);
    this.audio.play().catch(() => {});
  }

  onTime(f: (t: number) => void): void {
    this.listeners.push(f);
    f(this.time());
  }

  private notify(): void {
    const t = this.time();
    for (const f of this.listeners) f(t);
  }

  private loop(): void {
    cancelAnimationFrame(this.frame);
    const tick = () => {
      if (this.audio.paused || !this.audio.isConnected) return;
      this.notify();
      this.frame = requestAnimationFrame(tick);
    };
    this.frame = requestAnimationFrame(tick);
  }
}

/** Whether the reader asked for less motion (smooth scrolling is then instant). */
export function reducedMotion(): boolean {
  return typeof matchMedia === "function" && matchMedia("(prefers-reduced-motion: reduce)").matches;
}
