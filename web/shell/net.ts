// net.ts opens the page's datagram link to the server: WebTransport
// datagrams (unreliable, unordered: what snapshots and commands want)
// when the browser has them and the server answers, else WebSocket
// binary messages, one datagram per message.

export interface Link {
  kind: 'webtransport' | 'websocket';
  send(b: Uint8Array): void;
  close(reason: string): void;
  // closed resolves with the reason when the link closes.
  closed: Promise<string>;
}

export type Receive = (b: Uint8Array) => void;

const wtTimeoutMs = 3000;

// certHashes reads /lagkit/cert, {"sha256": HASH, "algorithm": "sha-256"}
// with the SHA-256 of the server's certificate in hex (base64 is taken
// too). Browsers accept a self-signed certificate for WebTransport only
// by such a hash.
export async function certHashes(base: string): Promise<ArrayBuffer[]> {
  const res = await fetch(base + '/lagkit/cert', { cache: 'no-store' });
  if (!res.ok) throw new Error(`/lagkit/cert: HTTP ${res.status}`);
  const cert = await res.json();
  if (typeof cert?.sha256 !== 'string') throw new Error('/lagkit/cert: no sha256 field');
  return [decodeHash(cert.sha256)];
}

export function decodeHash(s: string): ArrayBuffer {
  const t = s.replace(/^sha-?256[:=]/i, '').replace(/[:\s]/g, '');
  let bytes: Uint8Array;
  if (/^[0-9a-f]{64}$/i.test(t)) {
    bytes = new Uint8Array(32);
    for (let i = 0; i < 32; i++) bytes[i] = parseInt(t.slice(2 * i, 2 * i + 2), 16);
  } else {
    const bin = atob(t.replace(/-/g, '+').replace(/_/g, '/'));
    bytes = Uint8Array.from(bin, (c) => c.charCodeAt(0));
  }
  if (bytes.length !== 32) throw new Error(`/lagkit/cert: hash of ${bytes.length} bytes, want 32`);
  return bytes.buffer as ArrayBuffer;
}

function withTimeout<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  return new Promise((resolve, reject) => {
    const t = setTimeout(() => reject(new Error(`${what}: no answer in ${ms} ms`)), ms);
    p.then((v) => { clearTimeout(t); resolve(v); }, (e) => { clearTimeout(t); reject(e); });
  });
}

// open opens the link to host as the game does: WebTransport, then
// WebSocket; want 'ws' or 'wt' forces one. hashes pin host's
// certificate for WebTransport (default: its /lagkit/cert's).
export async function open(host: string, want: string | null, onData: Receive, hashes?: ArrayBuffer[]): Promise<Link> {
  if (want !== 'ws') {
    try {
      return await openWebTransport(host, onData, hashes);
    } catch (e) {
      if (want === 'wt') throw e;
      console.info(`lagkit: WebTransport unavailable (${(e as Error).message}); using WebSocket`);
    }
  }
  return openWebSocket(host, onData);
}

export async function openWebTransport(host: string, onData: Receive, hashes?: ArrayBuffer[]): Promise<Link> {
  const WT = (globalThis as any).WebTransport;
  if (typeof WT !== 'function') throw new Error('WebTransport is not available in this browser');
  hashes ??= await certHashes(`https://${host}`);
  const wt = new WT(`https://${host}/lagkit/wt`, {
    serverCertificateHashes: hashes.map((value) => ({ algorithm: 'sha-256', value })),
  });
  try {
    await withTimeout(wt.ready, wtTimeoutMs, 'WebTransport');
  } catch (e) {
    try { wt.close(); } catch { /* already failed */ }
    throw e;
  }
  // A datagram that waited long in the browser is worth less than none:
  // a stale snapshot makes the core reconcile and interpolate from the
  // past, a stale command arrives after its successors. Chromium queues
  // outgoing datagrams without limit while the page is busy drawing
  // (measured here: seconds of round trip under software rendering, 0.14 s
  // with these limits), so both queues get the WebTransport spec's age
  // and high-water limits where the browser has them.
  try {
    wt.datagrams.incomingMaxAge = 250;
    wt.datagrams.incomingHighWaterMark = 32;
    wt.datagrams.outgoingMaxAge = 250;
    wt.datagrams.outgoingHighWaterMark = 32;
  } catch { /* not supported: the browser's defaults stand */ }
  const writer = wt.datagrams.writable.getWriter();
  const reader = wt.datagrams.readable.getReader();
  const closed: Promise<string> = wt.closed.then(
    (info: any) => `WebTransport closed: ${info?.reason || 'no reason'}`,
    (e: any) => `WebTransport lost: ${e?.message ?? e}`);
  (async () => {
    for (;;) {
      const { value, done } = await reader.read().catch(() => ({ value: undefined, done: true }));
      if (done) return;
      onData(value as Uint8Array);
    }
  })();
  return {
    kind: 'webtransport',
    send: (b) => { writer.write(b).catch(() => { /* a datagram the link refused is a lost one */ }); },
    close: (reason) => { try { wt.close({ closeCode: 0, reason }); } catch { /* already closed */ } },
    closed,
  };
}

export async function openWebSocket(host: string, onData: Receive): Promise<Link> {
  const ws = new WebSocket(`wss://${host}/lagkit/ws`);
  ws.binaryType = 'arraybuffer';
  await new Promise<void>((resolve, reject) => {
    ws.onopen = () => resolve();
    ws.onerror = () => reject(new Error('WebSocket failed to open'));
  });
  const closed = new Promise<string>((resolve) => {
    ws.onclose = (e) => resolve(`WebSocket closed: ${e.reason || 'code ' + e.code}`);
  });
  ws.onmessage = (e) => { if (e.data instanceof ArrayBuffer) onData(new Uint8Array(e.data)); };
  return {
    kind: 'websocket',
    send: (b) => { if (ws.readyState === WebSocket.OPEN) ws.send(b); },
    close: (reason) => ws.close(1000, reason.slice(0, 120)),
    closed,
  };
}
