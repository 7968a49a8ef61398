// controls.ts turns keys and the mouse into the held input: WASD to move,
// space to jump, ctrl or C to crouch, shift to sprint, R to reload, 1-5
// for weapons, the mouse (under pointer lock) to look and fire; and runs
// the actions bound to other keys (onKey), such as the rewind view (V) and
// the "shot behind cover" report (B).
import type { Input } from './types';

const sensitivity = 0.0022; // radians per pixel
const maxPitch = (89 * Math.PI) / 180;

export class Controls {
  readonly input: Input = {
    forward: 0, side: 0, up: 0, yaw: 0, pitch: 0,
    fire: false, alt: false, jump: false, crouch: false, reload: false, sprint: false, weapon: 0,
  };
  private keys = new Set<string>();
  private actions = new Map<string, () => void>();
  // onFire is called as the fire button goes down or up, so the page
  // hands the core the press at the instant of the click, with the aim
  // of that instant, rather than at its next pump.
  onFire: () => void = () => {};
  // aimed is set once the view has been turned (by the mouse or by
  // set()), so the first spawn's yaw is taken only before that.
  aimed = false;

  constructor(canvas: HTMLElement) {
    canvas.addEventListener('click', () => {
      if (document.pointerLockElement !== canvas) canvas.requestPointerLock?.();
    });
    document.addEventListener('pointerlockchange', () => {
      document.body.classList.toggle('playing', document.pointerLockElement === canvas);
    });
    document.addEventListener('mousemove', (e) => {
      if (document.pointerLockElement !== canvas) return;
      this.turn(-e.movementX * sensitivity, -e.movementY * sensitivity);
    });
    document.addEventListener('mousedown', (e) => {
      if (document.pointerLockElement !== canvas) return;
      if (e.button === 2) this.input.alt = true;
      if (e.button === 0) { this.input.fire = true; this.onFire(); }
    });
    document.addEventListener('mouseup', (e) => {
      if (e.button === 2) this.input.alt = false;
      if (e.button === 0) { this.input.fire = false; this.onFire(); }
    });
    document.addEventListener('contextmenu', (e) => e.preventDefault());
    window.addEventListener('keydown', (e) => {
      // Keys typed into a form (the study's questionnaire) are not play.
      if (e.repeat || isField(e.target)) return;
      this.actions.get(e.code)?.();
      const n = Number(e.key);
      if (Number.isInteger(n) && n >= 1 && n <= 5) this.input.weapon = n - 1;
      this.keys.add(e.code);
      if (['Space', 'ControlLeft', 'ControlRight', 'KeyW', 'KeyA', 'KeyS', 'KeyD', 'KeyC', 'Tab'].includes(e.code)) e.preventDefault();
      this.fromKeys();
    });
    window.addEventListener('keyup', (e) => { this.keys.delete(e.code); this.fromKeys(); });
    window.addEventListener('blur', () => { this.keys.clear(); this.fromKeys(); this.input.fire = false; });
  }

  // onKey runs action when the key with code (KeyboardEvent.code) is
  // pressed.
  onKey(code: string, action: () => void): void { this.actions.set(code, action); }

  // scoreboard is whether Tab is held.
  get scoreboard(): boolean { return this.keys.has('Tab'); }

  private fromKeys(): void {
    const k = (c: string) => (this.keys.has(c) ? 1 : 0);
    this.input.forward = k('KeyW') - k('KeyS');
    this.input.side = k('KeyD') - k('KeyA');
    this.input.jump = this.keys.has('Space');
    this.input.crouch = this.keys.has('ControlLeft') || this.keys.has('ControlRight') || this.keys.has('KeyC');
    this.input.sprint = this.keys.has('ShiftLeft') || this.keys.has('ShiftRight');
    this.input.reload = this.keys.has('KeyR');
  }

  turn(dYaw: number, dPitch: number): void {
    const tau = 2 * Math.PI;
    this.input.yaw = (((this.input.yaw + dYaw) % tau) + tau) % tau;
    this.input.pitch = Math.max(-maxPitch, Math.min(maxPitch, this.input.pitch + dPitch));
    this.aimed = true;
  }

  // set merges i into the held input (window.lagkit.input).
  set(i: Partial<Input>): void {
    for (const [key, v] of Object.entries(i)) {
      if (!(key in this.input)) throw new Error(`lagkit.input: unknown field ${key}`);
      const cur = (this.input as any)[key];
      if (typeof v !== typeof cur) throw new Error(`lagkit.input: ${key} wants a ${typeof cur}`);
      (this.input as any)[key] = v;
    }
    if ('yaw' in i || 'pitch' in i) this.aimed = true;
  }
}

function isField(t: EventTarget | null): boolean {
  return t instanceof HTMLElement && (t.tagName === 'INPUT' || t.tagName === 'TEXTAREA' || t.tagName === 'SELECT' || t.isContentEditable);
}
