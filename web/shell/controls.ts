// controls.ts turns keys and the mouse into the held input, through the
// player's key bindings (settings.ts; by default WASD to move, space to
// jump, C or ctrl to crouch, shift to sprint, R to reload), the digit keys
// for the loadout's weapons, and the mouse (under pointer lock) to look
// and fire, at the player's sensitivity, Y inverted if asked; and runs
// the actions bound to other keys (onAction), such as the rewind view
// (V) and the "shot behind cover" report (B).
import type { Input } from './types';
import type { Action, Settings } from './settings';

const maxPitch = (89 * Math.PI) / 180;
// held are the actions that hold an input while their key is down.
const held: Action[] = ['forward', 'back', 'left', 'right', 'jump', 'crouch', 'sprint', 'reload', 'scoreboard'];

export class Controls {
  readonly input: Input = {
    forward: 0, side: 0, up: 0, yaw: 0, pitch: 0,
    fire: false, alt: false, jump: false, crouch: false, reload: false, sprint: false, weapon: 0, placed: 0,
  };
  private keys = new Set<string>();
  private actions = new Map<Action, () => void>();
  // onFire is called as the fire button goes down or up, so the page
  // hands the core the press at the instant of the click, with the aim
  // of that instant, rather than at its next pump.
  onFire: () => void = () => {};
  // weapons is how many weapons the loadout has: keys 1 to weapons
  // select them, the others do nothing.
  weapons = 1;
  // paused is set while the menu waits for a key to bind.
  paused: () => boolean = () => false;

  constructor(private canvas: HTMLElement, public settings: Settings) {
    canvas.addEventListener('click', () => this.lock());
    document.addEventListener('mousemove', (e) => {
      if (!this.locked) return;
      const s = this.settings.sensitivity / 1000;
      this.turn(-e.movementX * s, (this.settings.invertY ? 1 : -1) * e.movementY * s);
    });
    document.addEventListener('mousedown', (e) => {
      if (!this.locked) return;
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
      if (e.repeat || isField(e.target) || this.paused()) return;
      // Esc frees the pointer (the browser does too), which opens the menu.
      if (e.code === 'Escape' && this.locked) document.exitPointerLock();
      const a = this.action(e.code);
      if (a && !held.includes(a)) this.actions.get(a)?.();
      const n = Number(e.key);
      if (Number.isInteger(n) && n >= 1 && n <= this.weapons) this.input.weapon = n - 1;
      this.keys.add(e.code);
      if (a || ['Space', 'ControlLeft', 'ControlRight', 'Tab'].includes(e.code)) e.preventDefault();
      this.fromKeys();
    });
    window.addEventListener('keyup', (e) => { this.keys.delete(e.code); this.fromKeys(); });
    window.addEventListener('blur', () => { this.keys.clear(); this.fromKeys(); this.input.fire = false; });
  }

  // locked is whether the page holds the pointer.
  get locked(): boolean { return document.pointerLockElement === this.canvas; }

  lock(): void {
    if (!this.locked) (this.canvas.requestPointerLock?.() as Promise<void> | undefined)?.catch?.(() => {});
  }

  private action(code: string): Action | undefined {
    const b = this.settings.bindings;
    return (Object.keys(b) as Action[]).find((a) => b[a] === code);
  }

  // onAction runs f when the key bound to action is pressed.
  onAction(action: Action, f: () => void): void { this.actions.set(action, f); }

  private down(a: Action): boolean { return this.keys.has(this.settings.bindings[a]); }

  // scoreboard is whether its key is held.
  get scoreboard(): boolean { return this.down('scoreboard'); }

  private fromKeys(): void {
    const k = (a: Action) => (this.down(a) ? 1 : 0);
    this.input.forward = k('forward') - k('back');
    this.input.side = k('right') - k('left');
    this.input.jump = this.down('jump');
    this.input.crouch = this.down('crouch') || this.keys.has('ControlLeft') || this.keys.has('ControlRight');
    this.input.sprint = this.down('sprint');
    this.input.reload = this.down('reload');
  }

  turn(dYaw: number, dPitch: number): void {
    const tau = 2 * Math.PI;
    this.input.yaw = (((this.input.yaw + dYaw) % tau) + tau) % tau;
    this.input.pitch = Math.max(-maxPitch, Math.min(maxPitch, this.input.pitch + dPitch));
  }

  // face turns the view to yaw and pitch: the server placed the player.
  face(yaw: number, pitch: number): void {
    this.input.yaw = yaw;
    this.input.pitch = pitch;
    this.turn(0, 0);
  }

  // set merges i into the held input (window.lagkit.input).
  set(i: Partial<Input>): void {
    for (const [key, v] of Object.entries(i)) {
      if (!(key in this.input)) throw new Error(`lagkit.input: unknown field ${key}`);
      const cur = (this.input as any)[key];
      if (typeof v !== typeof cur) throw new Error(`lagkit.input: ${key} wants a ${typeof cur}`);
      (this.input as any)[key] = v;
    }
  }
}

function isField(t: EventTarget | null): boolean {
  return t instanceof HTMLElement && (t.tagName === 'INPUT' || t.tagName === 'TEXTAREA' || t.tagName === 'SELECT' || t.isContentEditable);
}
