package web

import (
	"encoding/base64"
	"encoding/json"
	"io"
	"io/fs"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/lagkit/lagkit/realtime"
	"github.com/lagkit/lagkit/study"
	"github.com/lagkit/lagkit/world"
)

// Paths the handler serves. The page itself is at "/".
const (
	ScriptPath   = "/lagkit/app.js"
	WasmExecPath = "/lagkit/wasm_exec.js"
	WasmPath     = "/lagkit/client.wasm"
	// MapPath is followed by a shipped map's name: its map file as JSON.
	MapPath = "/lagkit/map/"
	// TokenPath issues connect tokens (Options.Tokens): POST
	// {"player": NAME} returns {"token": BASE64}, and {"token": ""}
	// from a server that wants none.
	TokenPath = "/lagkit/token"
	// AdminScriptPath is the admin page's script (with Options.Study).
	AdminScriptPath = "/lagkit/admin.js"
	// SpectatePath is what a spectator's page (/?spectate=1) polls, with
	// Options.Host and without Options.Study: GET ?since=SEQ&shots=SEQ
	// returns the realtime.View of the match a new page joins (the
	// oldest) from Match.Spectate, with the hits and shots after those
	// sequence numbers; 204 while no match runs.
	SpectatePath = "/lagkit/spectate"
)

// coreWriteTimeout bounds writing the client core, once it is ready,
// on a server whose own write timeout would count the wait for it.
const coreWriteTimeout = 2 * time.Minute

// Options configure HandlerWith.
type Options struct {
	// Tokens, when set, issues a connect token (package token) for a
	// player, for a server that admits only clients holding one: the
	// page asks TokenPath for one before it connects.
	Tokens func(player string) ([]byte, error)
	// Study, when set, serves a live study: the participants' endpoints
	// (join by code, status, questionnaire, answers, ready), the admin's
	// behind AdminToken, and the admin page (see StudyJoinPath and the
	// paths after it).
	Study study.Control
	// AdminToken is the admin's bearer token; without it every admin
	// request is refused.
	AdminToken string
	// Host runs the matches: the study admin page spectates the round's
	// match through it, and without Study anyone's page spectates the
	// match a new page joins (SpectatePath).
	Host *realtime.Host
	// Maps, when set, are the maps MapPath serves by name (a server's
	// maps loaded at start as well as the shipped ones, which it serves
	// without).
	Maps *realtime.Maps
}

// Handler returns the handler for the page, its script, the client core
// and the shipped maps, at the paths above; it answers 404 for any other
// path, so a server mounts it at "/" beside its own routes. Calling it
// starts getting the client core ready (see the package doc); requests
// for the core wait until it is.
func Handler() http.Handler { return HandlerWith(Options{}) }

// HandlerWith is Handler configured by o.
func HandlerWith(o Options) http.Handler {
	startCore()
	index := newAsset(mustRead("shell/index.html"), "text/html; charset=utf-8")
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, r *http.Request) { serve(w, r, index) })
	mux.HandleFunc("GET /index.html", func(w http.ResponseWriter, r *http.Request) { serve(w, r, index) })
	mux.HandleFunc("GET "+ScriptPath, serveBundle(script))
	fromCore := func(pick func() *asset) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			// The first requests may wait for the core to be built:
			// the server's write deadline counts from when it is ready.
			rc := http.NewResponseController(w)
			_ = rc.SetWriteDeadline(time.Time{})
			err := waitCore(r.Context())
			_ = rc.SetWriteDeadline(time.Now().Add(coreWriteTimeout))
			if err != nil {
				http.Error(w, err.Error(), http.StatusInternalServerError)
				return
			}
			serve(w, r, pick())
		}
	}
	mux.HandleFunc("GET "+WasmPath, fromCore(func() *asset { return core.wasm }))
	mux.HandleFunc("GET "+WasmExecPath, fromCore(func() *asset { return core.wasmExec }))
	mux.HandleFunc("GET "+MapPath+"{name}", func(w http.ResponseWriter, r *http.Request) { serveMap(w, r, o.Maps) })
	mux.HandleFunc("POST "+TokenPath, func(w http.ResponseWriter, r *http.Request) { serveToken(w, r, o.Tokens) })
	if o.Study != nil {
		studyHandlers(mux, o)
	} else if o.Host != nil {
		mux.HandleFunc("GET "+SpectatePath, func(w http.ResponseWriter, r *http.Request) { serveSpectate(w, r, o.Host) })
	}
	return mux
}

// serveSpectate writes the view of host's oldest match for a spectator's
// page, or 204 when none runs.
func serveSpectate(w http.ResponseWriter, r *http.Request, host *realtime.Host) {
	var seqs [2]uint64
	for i, key := range []string{"since", "shots"} {
		if q := r.URL.Query().Get(key); q != "" {
			n, err := strconv.ParseUint(q, 10, 64)
			if err != nil {
				http.Error(w, key+" wants a sequence number", http.StatusBadRequest)
				return
			}
			seqs[i] = n
		}
	}
	w.Header().Set("Cache-Control", "no-store")
	ms := host.Matches()
	if len(ms) == 0 {
		w.WriteHeader(http.StatusNoContent)
		return
	}
	v, err := ms[0].Spectate(seqs[0], seqs[1])
	if err != nil {
		w.WriteHeader(http.StatusNoContent) // the match ended meanwhile
		return
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(v)
}

// ProbeScript serves the round-trip probe's script (shell/probe.ts), an
// ES module another page imports, an online study's join page: its
// measureAll(hosts, ticket) measures each game server host (package
// probe) over the link the game itself opens (shell/net.ts).
func ProbeScript() http.Handler { return serveBundle(probeScript) }

// serveBundle serves a page's script, bundling it on first use.
func serveBundle(b *lazyBundle) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		a, err := b.asset()
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		serve(w, r, a)
	}
}

// mustRead reads an embedded file that the build guarantees is there.
func mustRead(name string) []byte {
	data, err := fs.ReadFile(files, name)
	if err != nil {
		panic("web: embedded file missing: " + err.Error())
	}
	return data
}

// serve writes a with revalidation by ETag (browsers ask again each load
// and get 304 until the file changes) and gzip when the client takes it.
func serve(w http.ResponseWriter, r *http.Request, a *asset) {
	h := w.Header()
	h.Set("Content-Type", a.ctype)
	h.Set("ETag", a.etag)
	h.Set("Cache-Control", "no-cache")
	h.Set("X-Content-Type-Options", "nosniff")
	if a.gz != nil {
		h.Add("Vary", "Accept-Encoding")
	}
	if match := r.Header.Get("If-None-Match"); match != "" && strings.Contains(match, a.etag) {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	body := a.data
	if a.gz != nil && acceptsGzip(r) {
		h.Set("Content-Encoding", "gzip")
		body = a.gz
	}
	if r.Method == http.MethodHead {
		return
	}
	w.Write(body)
}

func acceptsGzip(r *http.Request) bool {
	for _, part := range strings.Split(r.Header.Get("Accept-Encoding"), ",") {
		enc, q, _ := strings.Cut(strings.TrimSpace(part), ";")
		if strings.TrimSpace(enc) == "gzip" && strings.ReplaceAll(strings.TrimSpace(q), " ", "") != "q=0" {
			return true
		}
	}
	return false
}

// serveMap writes a map of maps (the shipped maps if nil) as its map
// file.
func serveMap(w http.ResponseWriter, r *http.Request, maps *realtime.Maps) {
	load := world.Load
	if maps != nil {
		load = maps.Load
	}
	m, err := load(r.PathValue("name"))
	if err != nil {
		http.Error(w, err.Error(), http.StatusNotFound)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-cache")
	w.Write(world.Encode(m))
}

// serveToken issues a connect token for the player the request names,
// or none when issue is nil. It reads the request as lagkit serve's API
// does (realtime.DecodeTokenRequest).
func serveToken(w http.ResponseWriter, r *http.Request, issue func(string) ([]byte, error)) {
	body, err := io.ReadAll(io.LimitReader(r.Body, realtime.MaxTokenRequest+1))
	if err != nil {
		http.Error(w, "body: "+err.Error(), http.StatusBadRequest)
		return
	}
	player, err := realtime.DecodeTokenRequest("body", body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	var tok []byte
	if issue != nil {
		if tok, err = issue(player); err != nil {
			http.Error(w, err.Error(), http.StatusConflict)
			return
		}
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	json.NewEncoder(w).Encode(map[string]string{"token": base64.StdEncoding.EncodeToString(tok)})
}
