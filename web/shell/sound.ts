// sound.ts plays the game's sounds through the Web Audio API, by way of
// three.js (an AudioListener on the camera, PositionalAudio in the
// scene): shots, impacts, the hit confirmation, footsteps, the reload
// and deaths. The sounds are synthesized here, into AudioBuffers, when
// the page starts: no sound file is downloaded. A sound plays when the
// page shows what makes it (a shot's sound in the frame that draws its
// muzzle flash), so what is heard follows the same clock as what is
// seen: the page's frames, not the arrival of datagrams.
import * as THREE from 'three';
import type { Vec3 } from './types';

export type SoundName = 'shot' | 'distantShot' | 'impact' | 'hit' | 'step' | 'reload' | 'death';

// poolSize is how many positional sounds can play at once; the oldest
// is cut off for a new one.
const poolSize = 12;

export class Sound {
  readonly listener: THREE.AudioListener | null = null;
  private buffers = new Map<SoundName, AudioBuffer>();
  private pool: THREE.PositionalAudio[] = [];
  private flat: THREE.Audio[] = [];
  private next = 0;
  private nextFlat = 0;
  // last is the newest sound started: its name, the frame and instant
  // (performance.now()) it was started in, for window.lagkit.
  last: { name: SoundName; frame: number; at: number } | null = null;
  played = 0;
  private frame = -1;
  private inFrame = 0;

  // enabled false (?sound=0) makes no sound at all, and no audio
  // context: play only notes what it would have played.
  constructor(camera: THREE.Camera, volume: number, enabled = true) {
    if (!enabled) return;
    this.listener = new THREE.AudioListener();
    camera.add(this.listener);
    this.setVolume(volume);
    const ctx = this.listener.context;
    for (const [name, make] of Object.entries(synths) as [SoundName, (c: BaseAudioContext) => AudioBuffer][]) {
      this.buffers.set(name, make(ctx));
    }
    for (let i = 0; i < poolSize; i++) {
      const a = new THREE.PositionalAudio(this.listener);
      a.setRefDistance(4);
      a.setRolloffFactor(1.2);
      a.setDistanceModel('inverse');
      // Kept out of the scene: three.js would move every panner each
      // frame; a sound is placed once, when it starts.
      this.pool.push(a);
    }
    for (let i = 0; i < 6; i++) this.flat.push(new THREE.Audio(this.listener));
    // Browsers start audio only after a gesture: the first click or key.
    const resume = () => { if (ctx.state !== 'running') void ctx.resume(); };
    window.addEventListener('pointerdown', resume);
    window.addEventListener('keydown', resume);
  }

  setVolume(v: number): void { this.listener?.setMasterVolume(Math.max(0, Math.min(1, v))); }

  // state is the audio context's state: running, suspended (waiting for
  // a gesture) or closed.
  get state(): string { return this.listener?.context.state ?? 'off'; }

  // play starts sound name now, at pos in the world, or on the player
  // (pos null), at gain; frame is the frame being drawn.
  play(name: SoundName, pos: Vec3 | null, frame: number, gain = 1): void {
    // At most a few new sounds a frame: 63 players' steps and shots
    // would cost more than they are heard.
    if (frame !== this.frame) {
      this.frame = frame;
      this.inFrame = 0;
    }
    if (pos && ++this.inFrame > 4) return;
    this.played++;
    this.last = { name, frame, at: performance.now() };
    const buf = this.buffers.get(name);
    if (!buf) return;
    let a: THREE.Audio<GainNode | PannerNode>;
    if (pos) {
      const p = this.pool[this.next++ % this.pool.length];
      p.position.set(pos[0], pos[1], pos[2]);
      p.updateMatrixWorld();
      a = p;
    } else {
      a = this.flat[this.nextFlat++ % this.flat.length];
    }
    if (a.isPlaying) a.stop();
    a.setBuffer(buf);
    a.setVolume(gain);
    a.play();
  }
}

// The synthesized sounds: each a short buffer of samples.
type Synth = (ctx: BaseAudioContext) => AudioBuffer;

function buffer(ctx: BaseAudioContext, seconds: number, f: (t: number, i: number) => number): AudioBuffer {
  const rate = ctx.sampleRate, n = Math.max(1, Math.floor(seconds * rate));
  const b = ctx.createBuffer(1, n, rate);
  const d = b.getChannelData(0);
  for (let i = 0; i < n; i++) d[i] = Math.max(-1, Math.min(1, f(i / rate, i)));
  return b;
}

// noise is a deterministic white noise, so every page sounds the same.
function noise(): () => number {
  let s = 0x9e3779b9;
  return () => {
    s ^= s << 13; s ^= s >>> 17; s ^= s << 5;
    return ((s >>> 0) / 0xffffffff) * 2 - 1;
  };
}

// lowpass returns a one-pole low-pass filter of cut-off hz.
function lowpass(ctx: BaseAudioContext, hz: number): (x: number) => number {
  const a = 1 - Math.exp((-2 * Math.PI * hz) / ctx.sampleRate);
  let y = 0;
  return (x) => (y += a * (x - y));
}

const synths: Record<SoundName, Synth> = {
  // A crack of noise over a falling thump.
  shot: (ctx) => {
    const n = noise(), lp = lowpass(ctx, 3000);
    return buffer(ctx, 0.28, (t) => 0.9 * lp(n()) * Math.exp(-t * 28) + 0.7 * Math.sin(2 * Math.PI * (90 - 120 * t) * t) * Math.exp(-t * 18));
  },
  // The same, duller: another player's shot.
  distantShot: (ctx) => {
    const n = noise(), lp = lowpass(ctx, 1200);
    return buffer(ctx, 0.3, (t) => 0.9 * lp(n()) * Math.exp(-t * 20) + 0.4 * Math.sin(2 * Math.PI * 70 * t) * Math.exp(-t * 14));
  },
  // A short tick of filtered noise where a shot lands.
  impact: (ctx) => {
    const n = noise(), lp = lowpass(ctx, 2500);
    return buffer(ctx, 0.09, (t) => 0.8 * lp(n()) * Math.exp(-t * 60));
  },
  // Two quick high blips: the server registered your hit.
  hit: (ctx) => buffer(ctx, 0.12, (t) => 0.5 * Math.sin(2 * Math.PI * (t < 0.05 ? 1400 : 1900) * t) * (t < 0.05 ? 1 : Math.exp(-(t - 0.05) * 40))),
  // A soft low thud.
  step: (ctx) => {
    const n = noise(), lp = lowpass(ctx, 400);
    return buffer(ctx, 0.12, (t) => 1.6 * lp(n()) * Math.exp(-t * 35));
  },
  // Two metallic clicks.
  reload: (ctx) => buffer(ctx, 0.5, (t) => {
    const click = (t0: number, hz: number) => (t >= t0 ? Math.sin(2 * Math.PI * hz * (t - t0)) * Math.exp(-(t - t0) * 70) : 0);
    return 0.6 * (click(0, 2300) + click(0.32, 1700));
  }),
  // A falling tone.
  death: (ctx) => buffer(ctx, 0.7, (t) => 0.45 * Math.sin(2 * Math.PI * (320 - 260 * t) * t) * Math.exp(-t * 4)),
};
