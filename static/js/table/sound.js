// Short sounds made with Web Audio (no files): on by default, the choice kept per browser.

const KEY = "dobon.sound";

const PATTERNS = {
  play: [[520, 0.05]],
  draw: [[300, 0.05]],
  turn: [[660, 0.08], [880, 0.1]],
  chance: [[880, 0.09], [0, 0.04], [880, 0.09], [0, 0.04], [1175, 0.16]],
  dobon: [[220, 0.12], [110, 0.25]],
  cutin: [[740, 0.06], [990, 0.08]],
  end: [[523, 0.1], [659, 0.1], [784, 0.2]],
};

export class Sound {
  constructor() {
    this.enabled = localStorage.getItem(KEY) !== "off";
    this.ctx = null;
  }

  toggle() {
    this.enabled = !this.enabled;
    localStorage.setItem(KEY, this.enabled ? "on" : "off");
    if (this.enabled) this.play("play");
    return this.enabled;
  }

  play(name) {
    if (!this.enabled || !PATTERNS[name]) return;
    try {
      this.ctx = this.ctx || new AudioContext();
      let t = this.ctx.currentTime;
      for (const [freq, length] of PATTERNS[name]) {
        if (freq) this.tone(freq, t, length);
        t += length;
      }
    } catch {
      // No audio (autoplay policy before any gesture, or no device): stay silent.
    }
  }

  tone(freq, at, length) {
    const osc = this.ctx.createOscillator();
    const gain = this.ctx.createGain();
    osc.type = "triangle";
    osc.frequency.value = freq;
    gain.gain.setValueAtTime(0.0001, at);
    gain.gain.exponentialRampToValueAtTime(0.18, at + 0.01);
    gain.gain.exponentialRampToValueAtTime(0.0001, at + length);
    osc.connect(gain).connect(this.ctx.destination);
    osc.start(at);
    osc.stop(at + length + 0.02);
  }
}

export function vibrate(pattern) {
  // Before the first tap the browser refuses (and logs an error): a page opened or
  // reloaded by someone who has not touched it yet stays still.
  const active = !navigator.userActivation || navigator.userActivation.hasBeenActive;
  if (navigator.vibrate && active) navigator.vibrate(pattern);
}
