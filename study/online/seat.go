package online

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"time"

	"github.com/lagkit/lagkit/client"
	"github.com/lagkit/lagkit/game"
	"github.com/lagkit/lagkit/nav"
	"github.com/lagkit/lagkit/realtime"
	"github.com/lagkit/lagkit/shooter"
	"github.com/lagkit/lagkit/shooter/bots"
	"github.com/lagkit/lagkit/shooter/weapon"
	"github.com/lagkit/lagkit/study"
	"github.com/lagkit/lagkit/transport"
	"github.com/lagkit/lagkit/web"
	"github.com/lagkit/lagkit/world"
)

// SeatPlayer plays a person's seat of a study session from its join
// link as the participant's page does, with lagkit's shooter bot at the
// controls: it agrees to the consent, joins each round's match with the
// seat's code over WebSocket, answers each questionnaire, and returns
// when the study is over. A rehearsal seats one for every headless
// participant the lobby matched.
type SeatPlayer struct {
	// Link is the seat's join link (https://HOST:PORT/?code=CODE).
	Link string
	// TLS checks the game server (a pinned hash for a self-signed one).
	TLS transport.ClientTLS
	// Seed seeds the bot.
	Seed uint64
	// Poll is how often the study's status is asked (default 200 ms).
	Poll time.Duration
	// Seen, when set, is told each status the seat's page reads.
	Seen func(web.StudyStatus)
	// Attention is the instructed answer of each attention check, by
	// question id: an attentive participant reads the instruction and
	// gives it. Without it (or for a question not in it) the seat
	// answers as answers says, as an inattentive participant would.
	Attention map[string]int
}

// SeatResult is how a seat's play went.
type SeatResult struct {
	// Rounds is how many rounds' matches the seat joined, Answered how
	// many questionnaires it answered.
	Rounds, Answered int
	// Phase is the study's last phase seen (study.PhaseEnded when it
	// was played to its end).
	Phase string
}

// ErrStudyStopped is a study whose game server stopped it before its
// end: the participant is told to wait for its resumption.
var ErrStudyStopped = errors.New("online: the study was stopped")

// StoodInError is a seat a bot took for the rest of the study: its
// participant left mid-match and did not come back in time.
type StoodInError struct {
	// Reason is the game server's ("left mid-match (round 2 of 4)"),
	// Code whether the lobby gives a completion code for the part
	// played.
	Reason string
	Code   bool
}

func (e *StoodInError) Error() string {
	return "online: a bot has taken the seat (" + e.Reason + ")"
}

// Play plays the seat until the study ends, ctx ends, or the game
// server cannot be reached.
func (p *SeatPlayer) Play(ctx context.Context) (SeatResult, error) {
	var res SeatResult
	u, err := url.Parse(p.Link)
	if err != nil || u.Scheme != "https" || u.Host == "" || u.Query().Get("code") == "" {
		return res, fmt.Errorf("online: seat link %q: want https://HOST:PORT/?code=CODE", p.Link)
	}
	code, base := u.Query().Get("code"), "https://"+u.Host
	tlsc, err := p.TLS.TLSConfig()
	if err != nil {
		return res, err
	}
	hc := &http.Client{Transport: &http.Transport{TLSClientConfig: tlsc}, Timeout: 15 * time.Second}
	defer hc.CloseIdleConnections()
	poll := p.Poll
	if poll <= 0 {
		poll = 200 * time.Millisecond
	}
	played := ""
	kits := map[string]*seatKit{}
	for {
		var st web.StudyStatus
		if err := call(ctx, hc, http.MethodGet, base+web.StudyStatusPath+"?code="+url.QueryEscape(code), nil, &st); err != nil {
			return res, err
		}
		res.Phase = st.Phase
		if p.Seen != nil {
			p.Seen(st)
		}
		switch {
		case st.Left != "":
			return res, &StoodInError{Reason: st.Left, Code: st.LeftCode}
		case st.Phase == study.PhaseEnded:
			return res, nil
		case st.Phase == study.PhaseStopped:
			return res, ErrStudyStopped
		case st.Consent:
			body := map[string]any{"code": code, "client": study.ClientInfo{RefreshHz: 60, ScreenW: 1280, ScreenH: 720, PixelRatio: 1}}
			if err := call(ctx, hc, http.MethodPost, base+web.StudyConsentPath, body, nil); err != nil {
				return res, err
			}
			continue
		case st.Pending:
			var q web.StudyQuestionnaire
			if err := call(ctx, hc, http.MethodGet, base+web.StudyQuestionsPath+"?code="+url.QueryEscape(code), nil, &q); err != nil {
				return res, err
			}
			if len(q.Questions) > 0 {
				body := map[string]any{"code": code, "round": q.Round, "answers": answers(q.Questions, p.Attention)}
				if err := call(ctx, hc, http.MethodPost, base+web.StudyAnswersPath, body, nil); err != nil {
					return res, err
				}
				res.Answered++
				continue
			}
		case st.Match != "" && st.Match != played:
			k := kits[st.Map]
			if k == nil {
				if k, err = newSeatKit(st.Map); err != nil {
					return res, err
				}
				kits[st.Map] = k
			}
			var a study.Admission
			if err := call(ctx, hc, http.MethodPost, base+web.StudyJoinPath, map[string]string{"code": code}, &a); err != nil {
				return res, err
			}
			if a.Token == nil || a.Match == "" {
				break // between rounds after all
			}
			played = a.Match
			res.Rounds++
			// The match's end ends the session; a game server that is
			// gone is found by the next status.
			_ = k.play(ctx, "wss://"+u.Host, p.TLS, p.Seed+uint64(res.Rounds), a.Token)
			continue
		}
		select {
		case <-ctx.Done():
			return res, ctx.Err()
		case <-time.After(poll):
		}
	}
}

// answers answers every question as a participant in the middle of
// each scale would: no for yes/no, the first choice, no text; an
// attention check in attention gets its instructed answer. The page's
// endpoint records them as anyone's: a rehearsal keeps its records in
// a database of its own.
func answers(qs []web.StudyQuestion, attention map[string]int) []study.Response {
	out := make([]study.Response, 0, len(qs))
	for _, q := range qs {
		r := study.Response{Question: q.ID}
		if v, ok := attention[q.ID]; ok {
			r.Value = v
			out = append(out, r)
			continue
		}
		switch q.Kind {
		case "yesno", "choice", "text":
		default:
			r.Value = (q.Min + q.Max) / 2
		}
		out = append(out, r)
	}
	return out
}

// call sends a request to a study's endpoint and decodes a JSON answer
// into v (nil: none read); any status but 200 and 204 is an error.
func call(ctx context.Context, hc *http.Client, method, u string, body, v any) error {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return err
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, u, rd)
	if err != nil {
		return err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	r, err := hc.Do(req)
	if err != nil {
		return err
	}
	defer r.Body.Close()
	b, err := io.ReadAll(io.LimitReader(r.Body, 1<<20))
	if err != nil {
		return err
	}
	switch {
	case r.StatusCode == http.StatusNoContent:
		return nil
	case r.StatusCode != http.StatusOK:
		return &AnswerError{Status: r.StatusCode, Msg: string(bytes.TrimSpace(b))}
	case v == nil:
		return nil
	}
	return json.Unmarshal(b, v)
}

// seatKit is what a bot needs to play a map: the map, its navigation
// grid and lagkit's movement rules.
type seatKit struct {
	m      *world.Map
	grid   *nav.Grid
	params game.Params
	weapon weapon.Weapon
}

func newSeatKit(name string) (*seatKit, error) {
	m, err := world.Load(name)
	if err != nil {
		return nil, err
	}
	k := &seatKit{m: m, params: game.DefaultParams(), weapon: weapon.Rifle()}
	if k.grid, err = nav.Build(m, &k.params); err != nil {
		return nil, err
	}
	return k, nil
}

// play connects to the game server at addr with tok and plays until the
// match ends the session or ctx ends.
func (k *seatKit) play(ctx context.Context, addr string, tlsc transport.ClientTLS, seed uint64, tok []byte) error {
	b, err := bots.New(bots.Config{Skill: 0.9, Attacker: true}, k.m, k.grid, &k.params, &k.weapon, seed)
	if err != nil {
		return err
	}
	conn, err := transport.Dial(ctx, addr, transport.DialOptions{TLS: tlsc})
	if err != nil {
		return err
	}
	cc := client.Config{Map: k.m, Movement: &k.params, Name: "participant", Token: tok}
	if err := shooter.ArmClient(&cc, []weapon.Weapon{k.weapon}); err != nil {
		return err
	}
	_, err = realtime.RunClient(ctx, conn, realtime.ClientConfig{Client: cc, Brain: b})
	return err
}
