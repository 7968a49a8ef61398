// study.ts is a participant's side of a live study (the page opened as
// /?code=CODE): it joins the seat by participant code, follows the
// study's phase, and shows between rounds what the phase asks of the
// participant: the consent screen and the intake questions before
// anything else, the questionnaire after a round (yes/no, Likert 1 to 5
// or 7, fairness -5 to +5, anchored scales, numbers, choices, free
// text; after the last round with the final questions), the ready
// button, the countdown, or a wait. It measures the display's refresh
// rate from its animation frames and reports it, with the mouse
// sensitivity, at consent and on joining each round. When a new round's match starts, or the link to the round's
// match is lost, it joins again and hands the page the new connect token
// (onRound): the same code comes back to the same seat. Participants are never told the
// round's technique or name.

const $ = (id: string) => document.getElementById(id)!;

// Admission is what joining by code gives (study.Admission).
export interface Admission { seat: number; name: string; match: string; token: string; phase: string }

// Status is the participant's view of the study (web.StudyStatus).
export interface Status {
  study: string; phase: string; round: number; rounds: number; map: string;
  remaining_s: number; match: string; seat: number; answered: boolean; pending: boolean;
  consent: boolean; intake: boolean; frames: boolean;
  // left says why a bot took the seat (the participant left mid-match
  // and did not come back in time), left_code whether the study's lobby
  // gives a completion code for the part played.
  left?: string; left_code?: boolean;
}

type Kind = 'yesno' | 'likert' | 'likert7' | 'fairness' | 'scale' | 'number' | 'choice' | 'text';
interface Question {
  id: string; text: string; kind: Kind; stage: 'intake' | 'round' | 'final';
  min: number; max: number; choices?: string[]; anchors: [string, string];
}
interface Questionnaire { round: number; stage: 'intake' | 'round'; questions: Question[] }
// ClientInfo is what the page reports of its browser (study.ClientInfo).
export interface ClientInfo {
  refresh_hz: number; mouse_sensitivity: number; user_agent: string; screen_w: number; screen_h: number; pixel_ratio: number;
}
export interface Answer { question: string; value: number; text?: string }

const base = '/lagkit/study/';
// maxFrames bounds the frame times kept of one round (an hour at 144 Hz).
const maxFrames = 144 * 3600;

// rttEvery is how often (ms of frames) the client's round-trip estimate
// is sampled, as the simulated studies sample theirs.
const rttEvery = 50;

async function post(path: string, body: unknown): Promise<Response> {
  return fetch(base + path, {
    method: 'POST', cache: 'no-store', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body),
  });
}

async function failure(res: Response): Promise<string> {
  const text = await res.text();
  try { return JSON.parse(text).error ?? text; } catch { return text.trim() || `HTTP ${res.status}`; }
}

function clock(s: number): string {
  const m = Math.floor(s / 60);
  return `${m}:${String(Math.floor(s % 60)).padStart(2, '0')}`;
}

// choices are the values a question's buttons offer, with their labels.
function choices(q: Question): { value: number; label: string }[] {
  const range = () => Array.from({ length: q.max - q.min + 1 }, (_, i) => q.min + i);
  switch (q.kind) {
    case 'yesno': return [{ value: 1, label: 'Yes' }, { value: 0, label: 'No' }];
    case 'choice': return (q.choices ?? []).map((label, value) => ({ value, label }));
    case 'fairness': return range().map((v) => ({ value: v, label: v > 0 ? `+${v}` : String(v) }));
    case 'likert': case 'likert7': case 'scale': return range().map((v) => ({ value: v, label: String(v) }));
    default: return [];
  }
}

// scaleEnds labels the ends of a question's scale: its anchors, with
// the end's value.
function scaleEnds(q: Question): [string, string] | null {
  if (q.kind === 'fairness' && !q.anchors[0]) return ['−5', '+5'];
  if (!q.anchors[0] && !q.anchors[1]) return null;
  const show = (v: number) => (q.kind === 'fairness' && v > 0 ? `+${v}` : String(v));
  return [`${show(q.min)} ${q.anchors[0]}`, `${show(q.max)} ${q.anchors[1]}`];
}

// measureRefresh measures the display's refresh rate from the median
// interval of frames animation frames (0 when the page is hidden and
// draws none within 3 s).
export function measureRefresh(frames = 40): Promise<number> {
  return new Promise((resolve) => {
    const times: number[] = [];
    const timer = setTimeout(() => resolve(0), 3000);
    const step = (t: number) => {
      times.push(t);
      if (times.length <= frames) { requestAnimationFrame(step); return; }
      clearTimeout(timer);
      const d = times.slice(1).map((x, i) => x - times[i]).sort((a, b) => a - b);
      const mid = d[Math.floor(d.length / 2)];
      resolve(mid > 0 ? Math.round(10000 / mid) / 10 : 0);
    };
    requestAnimationFrame(step);
  });
}

export class Study {
  status: Status | null = null;
  admission: Admission | null = null;
  questionnaire: Questionnaire | null = null;
  // chosen holds the values picked so far, by question id.
  chosen = new Map<string, number>();
  // answered lists the rounds whose answers the server took.
  answered: number[] = [];
  readyPressed = -1; // the round whose ready button was pressed
  joins = 0;
  error = '';
  // fatal is set when the study cannot be joined at all (no study
  // runs here, or it has no seat with this code): the page says so once
  // and stops asking.
  fatal = '';
  // onRound is called with the admission to each new round's match.
  onRound: (a: Admission) => Promise<void> = async () => {};
  // linkClosed reports whether the page's link to its match has closed
  // (a network loss, a server restart): the page then joins again.
  linkClosed: () => boolean = () => false;
  // sensitivity returns the page's mouse sensitivity, reported with the
  // browser.
  sensitivity: () => number = () => 0;
  // refreshHz is the display's refresh rate as measured (0 until then).
  refreshHz = 0;
  // consent is the consent text and its button's label, once read.
  consent: { text: string; agree: string } | null = null;
  consented = false;
  // framesSent lists the rounds whose frame times the server took.
  framesSent: number[] = [];
  // frameDts are the times between the frames drawn in the measured
  // part of round frameRound (at most maxFrames of them).
  private frameDts: number[] = [];
  private frameRound = -1;
  // rtts are samples of the client's round-trip estimate in the same
  // part of the round, one each rttEvery ms of frames.
  private rtts: number[] = [];
  private rttClock = 0;
  private playing = '';
  private switching = false;
  private lastJoin = -Infinity;

  constructor(readonly code: string) {
    $('ready').addEventListener('click', () => { this.ready(); });
    $('study-submit').addEventListener('click', (e) => { e.preventDefault(); this.submit(); });
    $('consent-agree').addEventListener('click', () => { this.agree(); });
    measureRefresh().then((hz) => { this.refreshHz = hz; });
  }

  // frame takes the time dt (ms) since the page's last frame and the
  // client's round-trip estimate (ms, 0: unknown): counted while a
  // round's measured part is played.
  frame(dt: number, rttMs = 0): void {
    const st = this.status;
    if (!st || !st.frames || st.phase !== 'playing' || this.frameDts.length >= maxFrames) return;
    if (st.round !== this.frameRound) {
      this.flushFrames();
      this.frameRound = st.round;
    }
    this.frameDts.push(dt);
    this.rttClock += dt;
    if (this.rttClock >= rttEvery) {
      this.rttClock %= rttEvery;
      if (rttMs > 0 && rttMs <= 60000) this.rtts.push(rttMs);
    }
  }

  // flushFrames sends the frame times of the round counted, once it is
  // over: their count, mean, median, 95th and 99th percentiles and
  // maximum.
  private async flushFrames(): Promise<void> {
    const d = this.frameDts, round = this.frameRound, r = this.rtts;
    this.frameDts = [];
    this.rtts = [];
    this.rttClock = 0;
    this.frameRound = -1;
    if (round < 0 || d.length === 0) return;
    d.sort((a, b) => a - b);
    const at = (q: number) => d[Math.min(d.length - 1, Math.ceil(q * d.length) - 1)];
    const frames = {
      round, frames: d.length, mean_ms: d.reduce((a, b) => a + b, 0) / d.length,
      p50_ms: at(0.5), p95_ms: at(0.95), p99_ms: at(0.99), max_ms: d[d.length - 1],
    };
    frames.mean_ms = Math.min(frames.mean_ms, frames.max_ms);
    // The client-side half of the manipulation check: the mean of its
    // round-trip samples and the mean absolute difference of successive
    // ones, as the server's measurement sums up its own.
    let jitter = 0;
    for (let i = 1; i < r.length; i++) jitter += Math.abs(r[i] - r[i - 1]);
    const rtt = {
      rtt_mean_ms: r.length > 0 ? r.reduce((a, b) => a + b, 0) / r.length : 0,
      rtt_jitter_ms: r.length > 1 ? jitter / (r.length - 1) : 0,
      rtt_samples: r.length,
    };
    const res = await post('frames', { code: this.code, frames: { ...frames, ...rtt } });
    if (res.ok) this.framesSent.push(round);
    else console.warn(`study: frame times of round ${round + 1}: ${await failure(res)}`);
  }

  // client is what the page reports of its browser.
  client(): ClientInfo {
    return {
      refresh_hz: this.refreshHz, mouse_sensitivity: this.sensitivity(), user_agent: navigator.userAgent.slice(0, 512),
      screen_w: screen.width, screen_h: screen.height, pixel_ratio: window.devicePixelRatio || 1,
    };
  }

  // agree sends the participant's agreement to the consent text; it
  // resolves to the HTTP status.
  async agree(): Promise<number> {
    if (!this.refreshHz) this.refreshHz = await measureRefresh();
    const res = await post('consent', { code: this.code, client: this.client() });
    if (res.ok) {
      this.consented = true;
      this.error = '';
      if (this.status) this.status.consent = false;
    } else {
      this.error = await failure(res);
    }
    this.show();
    return res.status;
  }

  // join asks for the seat's admission.
  async join(): Promise<Admission> {
    const res = await post('join', { code: this.code, client: this.client() });
    if (!res.ok) {
      const why = await failure(res);
      this.refused(res.status, why);
      throw new Error(`participant code: ${why}`);
    }
    const a = await res.json();
    this.joins++;
    this.admission = a;
    return a;
  }

  // poll reads the study's status, joins a new round's match, and shows
  // what the phase asks for.
  async poll(): Promise<void> {
    if (this.fatal) return;
    const res = await fetch(`${base}status?code=${encodeURIComponent(this.code)}`, { cache: 'no-store' });
    if (!res.ok) {
      this.error = await failure(res);
      this.refused(res.status, this.error);
      this.show();
      return;
    }
    this.status = await res.json();
    const st = this.status!;
    if (st.left) {
      // A bot plays the seat for the rest of the study: nothing here
      // changes that, so the page stops asking.
      this.fatal = 'A bot has taken your seat';
      this.error = `A bot plays your seat for the rest of the study: you ${st.left} and did not come back in time. ` +
        (st.left_code
          ? 'Go back to the study\'s first page (the lobby) for your completion code for the part you played.'
          : 'This study gives no completion code for a match left before its end. Thank you for your time.');
      this.show();
      return;
    }
    if (this.frameRound >= 0 && (st.round !== this.frameRound || (st.phase !== 'playing' && st.phase !== 'paused'))) await this.flushFrames();
    if (st.consent && !this.consent) await this.loadConsent();
    // Between consent and the intake, the page joins no match.
    const waiting = st.consent || st.intake;
    // Join a new round's match, or the same again after losing the link
    // (at most every 3 s: each join issues a connect token).
    const lost = st.match === this.playing && this.linkClosed() && performance.now() - this.lastJoin > 3000;
    if (st.match && !waiting && (st.match !== this.playing || lost) && !this.switching) {
      this.switching = true;
      this.lastJoin = performance.now();
      try {
        const a = await this.join();
        if (a.match) {
          this.playing = a.match;
          await this.onRound(a);
        }
        this.error = '';
      } catch (e) {
        this.error = (e as Error).message;
      } finally {
        this.switching = false;
      }
    }
    if ((st.phase === 'questions' || st.intake) && st.pending && this.questionnaire === null) await this.loadQuestions();
    this.show();
  }

  private async loadConsent(): Promise<void> {
    const res = await fetch(`${base}consent?code=${encodeURIComponent(this.code)}`, { cache: 'no-store' });
    if (res.status === 200) {
      this.consent = await res.json();
      $('consent-text').textContent = this.consent!.text;
      $('consent-agree').textContent = this.consent!.agree;
    }
  }

  // refused makes an answer that no asking again can change fatal: 404
  // (no study here, or no seat with this code) and 400 (not a code).
  private refused(status: number, why: string): void {
    if (status !== 404 && status !== 400) return;
    const noStudy = /page not found/i.test(why);
    this.fatal = noStudy ? 'No study is running on this server.' : 'This participant code is not part of the study.';
    this.error = noStudy
      ? 'Check the address you were given, or ask the experimenter whether the study has started, then reload this page.'
      : `The code "${this.code}" was not found. Check the link you were given, or ask the experimenter, then reload this page.`;
    console.info(`lagkit: study: ${this.fatal} (${why})`);
  }

  private async loadQuestions(): Promise<void> {
    const res = await fetch(`${base}questions?code=${encodeURIComponent(this.code)}`, { cache: 'no-store' });
    if (res.status === 204) return;
    if (!res.ok) {
      this.error = await failure(res);
      return;
    }
    this.questionnaire = await res.json();
    this.chosen.clear();
    this.renderQuestions();
  }

  private renderQuestions(): void {
    const q = this.questionnaire!;
    const form = $('questions');
    form.innerHTML = '';
    let stage = q.stage === 'intake' ? 'intake' : 'round';
    for (const x of q.questions) {
      if (x.stage === 'final' && stage !== 'final') {
        stage = 'final';
        const h = document.createElement('h3');
        h.className = 'stage';
        h.textContent = 'About the whole study';
        form.appendChild(h);
      }
      const field = document.createElement('fieldset');
      field.id = `q-${x.id}`;
      field.dataset.question = x.id;
      field.dataset.kind = x.kind;
      const legend = document.createElement('legend');
      legend.textContent = x.text;
      field.appendChild(legend);
      if (x.kind === 'text') {
        const t = document.createElement('textarea');
        t.maxLength = 500;
        t.rows = 2;
        t.name = x.id;
        t.addEventListener('input', () => this.checkComplete());
        field.appendChild(t);
      } else if (x.kind === 'number') {
        const n = document.createElement('input');
        n.type = 'number';
        n.min = String(x.min);
        n.max = String(x.max);
        n.step = '1';
        n.name = x.id;
        n.addEventListener('input', () => {
          const v = Number(n.value);
          if (n.value !== '' && Number.isInteger(v) && v >= x.min && v <= x.max) this.chosen.set(x.id, v);
          else this.chosen.delete(x.id);
          this.checkComplete();
        });
        field.appendChild(n);
        const e = document.createElement('div');
        e.className = 'ends';
        e.textContent = `a whole number from ${x.min} to ${x.max}`;
        field.appendChild(e);
      } else {
        const row = document.createElement('div');
        row.className = `scale ${x.kind}`;
        for (const c of choices(x)) {
          const b = document.createElement('button');
          b.type = 'button';
          b.className = 'choice';
          b.dataset.value = String(c.value);
          b.textContent = c.label;
          b.addEventListener('click', () => this.choose(x.id, c.value));
          row.appendChild(b);
        }
        field.appendChild(row);
        const ends = scaleEnds(x);
        if (ends) {
          const e = document.createElement('div');
          e.className = 'ends';
          e.innerHTML = `<span></span><span></span>`;
          e.children[0].textContent = ends[0];
          e.children[1].textContent = ends[1];
          field.appendChild(e);
        }
      }
      form.appendChild(field);
    }
    this.checkComplete();
  }

  // choose picks value for question id, as its button does.
  choose(id: string, value: number): void {
    const field = document.getElementById(`q-${id}`);
    if (!field) throw new Error(`no question ${id}`);
    this.chosen.set(id, value);
    const n = field.querySelector<HTMLInputElement>('input[type=number]');
    if (n) n.value = String(value);
    for (const b of field.querySelectorAll<HTMLButtonElement>('button.choice')) {
      b.classList.toggle('on', Number(b.dataset.value) === value);
    }
    this.checkComplete();
  }

  // complete reports whether every question but free text has a value.
  private complete(): boolean {
    return !!this.questionnaire && this.questionnaire.questions.every((x) => x.kind === 'text' || this.chosen.has(x.id));
  }

  private checkComplete(): void {
    ($('study-submit') as HTMLButtonElement).disabled = !this.complete();
  }

  // answers are the form's answers: the chosen values and the free text.
  answers(): Answer[] {
    const out: Answer[] = [];
    for (const x of this.questionnaire?.questions ?? []) {
      if (x.kind === 'text') {
        const t = document.querySelector<HTMLTextAreaElement>(`#q-${CSS.escape(x.id)} textarea`);
        out.push({ question: x.id, value: 0, text: t?.value.trim() ?? '' });
      } else if (this.chosen.has(x.id)) {
        out.push({ question: x.id, value: this.chosen.get(x.id)! });
      }
    }
    return out;
  }

  // submit sends the form's answers; it resolves to the HTTP status.
  async submit(answers = this.answers()): Promise<number> {
    const q = this.questionnaire;
    if (!q) return 0;
    ($('study-submit') as HTMLButtonElement).disabled = true;
    const res = await post('answers', { code: this.code, round: q.round, answers });
    if (res.ok || res.status === 409) {
      // 409: answered already (from another tab, or a retry).
      this.answered.push(q.round);
      this.questionnaire = null;
      this.error = '';
    } else {
      this.error = await failure(res);
      this.checkComplete();
    }
    this.show();
    return res.status;
  }

  async ready(): Promise<number> {
    const res = await post('ready', { code: this.code });
    if (res.ok) this.readyPressed = this.status?.round ?? 0;
    else this.error = await failure(res);
    this.show();
    return res.status;
  }

  // overlay names what the overlay shows: '' (hidden), questions,
  // thanks, ready, countdown or wait.
  overlay = '';

  show(): void {
    const st = this.status;
    let title = '', text = '', overlay = 'wait';
    const left = st && st.remaining_s > 0 ? ` (${clock(st.remaining_s)})` : '';
    let what = this.fatal ? 'fatal' : st?.phase;
    const closed = st?.phase === 'ended' || st?.phase === 'stopped';
    if (!this.fatal && st?.consent && !closed) what = 'consent';
    else if (!this.fatal && !closed && this.questionnaire?.stage === 'intake') what = 'intake';
    switch (what) {
      case 'fatal': title = this.fatal; break;
      case 'consent':
        title = 'Before you take part';
        overlay = 'consent';
        break;
      case 'intake':
        if (this.questionnaire) {
          title = 'Before you play: about you';
          overlay = 'questions';
        } else {
          title = 'Loading the questions…';
        }
        break;
      case undefined: title = 'Joining the study…'; break;
      case 'waiting': title = 'Waiting for the experimenter to start'; break;
      case 'warmup': overlay = ''; break;
      case 'playing': overlay = ''; break;
      case 'ready':
        if (this.readyPressed === st.round) {
          title = 'Ready — waiting for the other players';
        } else {
          title = `Round ${st.round + 1} of ${st.rounds}`;
          text = 'Press Ready when you are set to play.';
          overlay = 'ready';
        }
        break;
      case 'countdown': title = String(Math.max(1, Math.ceil(st.remaining_s))); overlay = 'countdown'; break;
      case 'paused': title = 'Paused by the experimenter'; break;
      case 'questions':
        if (this.questionnaire) {
          title = this.questionnaire.questions.every((x) => x.stage === 'final')
            ? 'About the whole study'
            : `About round ${this.questionnaire.round + 1}, the round you just played`;
          overlay = 'questions';
        } else {
          title = 'Thank you';
          text = `Waiting for the next round${left}.`;
          overlay = 'thanks';
        }
        break;
      case 'interval': title = `Next round soon${left}`; break;
      case 'ended': title = 'The study is over — thank you for taking part'; break;
      // Stopped by the experimenter's server, to be resumed: the page
      // keeps polling and carries on when the study is back.
      case 'stopped':
        title = 'The study has stopped: please wait';
        text = 'Keep this page open; it carries on when the experimenter resumes the study.';
        break;
      default: title = st?.phase ?? '';
    }
    $('consent').hidden = overlay !== 'consent';
    if (this.error) text = `${text} ${this.error}`.trim();
    this.overlay = overlay;
    const box = $('study');
    box.hidden = overlay === '';
    box.className = overlay;
    $('study-title').textContent = title;
    $('study-text').textContent = text;
    $('questionnaire').hidden = overlay !== 'questions';
    $('ready').hidden = overlay !== 'ready';
    // The round banner while playing: the round and its time left.
    const banner = $('study-round');
    banner.textContent = st && (st.phase === 'playing' || st.phase === 'warmup')
      ? `${st.phase === 'warmup' ? 'warm-up · ' : ''}round ${st.round + 1}/${st.rounds}${left}` : '';
    if (overlay !== '' && document.pointerLockElement) document.exitPointerLock();
  }

  // state is what window.lagkit.study() returns.
  state() {
    return {
      code: this.code, status: this.status, seat: this.admission?.seat ?? -1, match: this.playing, joins: this.joins,
      overlay: this.overlay, questions: this.questionnaire?.questions ?? [], round: this.questionnaire?.round ?? -1,
      stage: this.questionnaire?.stage ?? '', consent: this.consent, consented: this.consented, refresh_hz: this.refreshHz,
      frames_sent: this.framesSent,
      chosen: Object.fromEntries(this.chosen), answered: this.answered, error: this.error,
    };
  }
}
