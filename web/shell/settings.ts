// settings.ts holds the player's settings (mouse sensitivity, invert Y,
// field of view, volume, key bindings), kept in localStorage so that they
// survive a reload, and the menu that edits them: the overlay shown
// whenever the page does not hold the pointer (before the first click,
// after Esc), which says "click to play", lists the keys and offers
// resume, the settings and fullscreen.

const storeKey = 'lagkit.settings';

// Actions the keys are bound to; weapon slots are the digit keys.
export const actions = {
  forward: 'move forward', back: 'move back', left: 'strafe left', right: 'strafe right',
  jump: 'jump', crouch: 'crouch', sprint: 'sprint', reload: 'reload', scoreboard: 'scoreboard',
  rewind: 'rewind view', older: 'older rewind', newer: 'newer rewind', flip: 'your shots / shots on you',
  report: 'report "shot behind cover"', netgraph: 'net graph', impacts: 'impacts',
} as const;
export type Action = keyof typeof actions;

export const defaultBindings: Record<Action, string> = {
  forward: 'KeyW', back: 'KeyS', left: 'KeyA', right: 'KeyD', jump: 'Space', crouch: 'KeyC', sprint: 'ShiftLeft',
  reload: 'KeyR', scoreboard: 'Tab', rewind: 'KeyV', older: 'BracketLeft', newer: 'BracketRight', flip: 'Backslash',
  report: 'KeyB', netgraph: 'KeyN', impacts: 'KeyI',
};

export interface Settings {
  sensitivity: number; // radians per pixel ×1000
  invertY: boolean;
  fov: number; // horizontal degrees; 0: the server's
  volume: number; // 0..1
  bindings: Record<Action, string>;
}

export const defaults: Settings = { sensitivity: 2.2, invertY: false, fov: 0, volume: 0.6, bindings: { ...defaultBindings } };

// load reads the kept settings, defaults for whatever is missing or bad.
export function load(): Settings {
  const s: Settings = { ...defaults, bindings: { ...defaultBindings } };
  try {
    const kept = JSON.parse(localStorage.getItem(storeKey) ?? '{}');
    if (typeof kept.sensitivity === 'number' && kept.sensitivity > 0 && kept.sensitivity <= 20) s.sensitivity = kept.sensitivity;
    if (typeof kept.invertY === 'boolean') s.invertY = kept.invertY;
    if (typeof kept.fov === 'number' && kept.fov >= 0 && kept.fov <= 150) s.fov = kept.fov;
    if (typeof kept.volume === 'number' && kept.volume >= 0 && kept.volume <= 1) s.volume = kept.volume;
    for (const a of Object.keys(defaultBindings) as Action[]) {
      if (typeof kept.bindings?.[a] === 'string' && kept.bindings[a]) s.bindings[a] = kept.bindings[a];
    }
  } catch { /* no storage, or not ours: the defaults */ }
  return s;
}

export function save(s: Settings): void {
  try { localStorage.setItem(storeKey, JSON.stringify(s)); } catch { /* storage off: kept for this page only */ }
}

// keyName is how the help and the menu name a key code.
export function keyName(code: string): string {
  const names: Record<string, string> = {
    Space: 'space', ShiftLeft: 'shift', ShiftRight: 'right shift', ControlLeft: 'ctrl', ControlRight: 'right ctrl',
    BracketLeft: '[', BracketRight: ']', Backslash: '\\', Tab: 'Tab', Comma: ',', Period: '.', Slash: '/',
    Semicolon: ';', Quote: "'", Backquote: '`', Minus: '-', Equal: '=', AltLeft: 'alt', AltRight: 'right alt',
  };
  if (names[code]) return names[code];
  if (code.startsWith('Key')) return code.slice(3);
  if (code.startsWith('Digit')) return code.slice(5);
  if (code.startsWith('Arrow')) return code.slice(5).toLowerCase();
  return code;
}

const $ = (id: string) => document.getElementById(id)!;

// Menu is the overlay: open whenever the pointer is free, unless the page
// is driven by a script (window.lagkit.input), which plays without it.
export class Menu {
  settings = load();
  open = true;
  // scripted is set once a script drives the page: the menu then opens
  // only when asked (window.lagkit.menu(true)).
  scripted = false;
  private forced: boolean | null = null;
  private binding: Action | null = null;
  private loadout: string[] = ['rifle'];
  private fovMax = 90;
  onChange: (s: Settings) => void = () => {};
  onResume: () => void = () => {};

  constructor() {
    $('menu').addEventListener('click', (e) => { if (e.target === $('menu')) this.onResume(); });
    $('menu-resume').addEventListener('click', () => this.onResume());
    $('menu-fullscreen').addEventListener('click', () => {
      if (document.fullscreenElement) document.exitFullscreen?.(); else document.documentElement.requestFullscreen?.();
    });
    $('menu-reset').addEventListener('click', () => { this.apply({ ...defaults, bindings: { ...defaultBindings } }); });
    const num = (id: string, f: (v: number) => Partial<Settings>) =>
      $(id).addEventListener('input', (e) => this.apply({ ...this.settings, ...f(Number((e.target as HTMLInputElement).value)) }));
    num('set-sens', (v) => ({ sensitivity: v }));
    num('set-fov', (v) => ({ fov: v }));
    num('set-volume', (v) => ({ volume: v / 100 }));
    $('set-invert').addEventListener('change', (e) => this.apply({ ...this.settings, invertY: (e.target as HTMLInputElement).checked }));
    window.addEventListener('keydown', (e) => {
      if (!this.binding) return;
      e.preventDefault();
      e.stopImmediatePropagation();
      if (e.code !== 'Escape') this.apply({ ...this.settings, bindings: { ...this.settings.bindings, [this.binding]: e.code } });
      this.binding = null;
      this.render();
    }, { capture: true });
    this.render();
  }

  // rebinding reports whether the menu waits for a key to bind.
  get rebinding(): boolean { return this.binding !== null; }

  // apply takes new settings, keeps them and tells the page.
  apply(s: Settings): void {
    this.settings = s;
    save(s);
    this.render();
    this.onChange(s);
  }

  // setLoadout names the weapons keys 1, 2, ... select; setFovMax the
  // widest field of view the server allows.
  setLoadout(names: string[]): void {
    if (names.length === 0 || names.join() === this.loadout.join()) return;
    this.loadout = names;
    this.render();
  }
  setFovMax(deg: number): void {
    if (!(deg > 0) || deg === this.fovMax) return;
    this.fovMax = deg;
    this.render();
  }

  // fov is the horizontal field of view in force: the player's within
  // what the server allows (its own at most, 30 degrees less at least).
  fov(): number {
    const f = this.settings.fov;
    return f > 0 ? Math.max(this.fovMax - 30, Math.min(this.fovMax, f)) : this.fovMax;
  }

  // show opens or closes the menu: forced by a script (true, false), or
  // null to follow the pointer lock again.
  force(open: boolean | null): void { this.forced = open; }

  // update opens the menu when the pointer is free (locked: whether the
  // page holds it).
  update(locked: boolean): void {
    const open = this.forced ?? (!locked && !this.scripted);
    if (open === this.open) return;
    this.open = open;
    $('menu').hidden = !open;
    if (!open) this.binding = null;
  }

  // help is the keys' line, with only the loadout's weapons.
  help(): string {
    const b = this.settings.bindings, k = (a: Action) => keyName(b[a]);
    const weapons = this.loadout.map((w, i) => `${i + 1} ${w}`).join(', ');
    return `${k('forward')}${k('left')}${k('back')}${k('right')} move · ${k('jump')} jump · ${k('crouch')} crouch · ` +
      `${k('sprint')} sprint · ${k('reload')} reload · ${weapons} · mouse look and fire · hold ${k('scoreboard')} scores · ` +
      `${k('rewind')} rewind view (${k('older')} ${k('newer')} older/newer, ${k('flip')} yours/on you) · ` +
      `${k('report')} report "shot behind cover" · ${k('netgraph')} net graph · ${k('impacts')} impacts · Esc menu`;
  }

  private render(): void {
    const s = this.settings;
    $('help').textContent = this.help();
    const sens = $('set-sens') as HTMLInputElement, fov = $('set-fov') as HTMLInputElement;
    sens.value = String(s.sensitivity);
    $('val-sens').textContent = s.sensitivity.toFixed(1);
    fov.min = String(this.fovMax - 30);
    fov.max = String(this.fovMax);
    fov.value = String(this.fov());
    $('val-fov').textContent = `${this.fov()}°`;
    ($('set-volume') as HTMLInputElement).value = String(Math.round(s.volume * 100));
    $('val-volume').textContent = `${Math.round(s.volume * 100)} %`;
    ($('set-invert') as HTMLInputElement).checked = s.invertY;
    const rows = (Object.keys(actions) as Action[]).map((a) =>
      `<tr><td>${actions[a]}</td><td><button type="button" data-action="${a}">${this.binding === a ? 'press a key…' : escape(keyName(s.bindings[a]))}</button></td></tr>`);
    const table = $('set-keys');
    table.innerHTML = rows.join('');
    for (const btn of table.querySelectorAll<HTMLButtonElement>('button')) {
      btn.addEventListener('click', () => { this.binding = btn.dataset.action as Action; this.render(); });
    }
  }
}

function escape(s: string): string {
  return s.replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' }[c]!));
}
