package live

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/lagkit/lagkit/client"
	"github.com/lagkit/lagkit/game"
	"github.com/lagkit/lagkit/internal/walltest"
	"github.com/lagkit/lagkit/nav"
	"github.com/lagkit/lagkit/realtime"
	"github.com/lagkit/lagkit/record"
	"github.com/lagkit/lagkit/shooter"
	"github.com/lagkit/lagkit/shooter/bots"
	"github.com/lagkit/lagkit/shooter/weapon"
	"github.com/lagkit/lagkit/store"
	"github.com/lagkit/lagkit/study"
	"github.com/lagkit/lagkit/token"
	"github.com/lagkit/lagkit/transport"
	"github.com/lagkit/lagkit/world"
)

// twoRounds is a study of two people (codes ann and ben) and two bots,
// in two short rounds that switch technique; the second waits for
// everyone and counts down.
const twoRounds = `name = "live-two"

[[seat]]
code = "ann"

[[seat]]
code = "ben"

[[seat]]
bot = true
count = 2

[[technique]]
name = "tlc"

[[technique]]
name = "none"
policy = { name = "none" }

[[latency]]
seats = [1]
latency_ms = 40

[[round]]
name = "tlc round"
map = "arena"
mode = "ffa"
duration = "4s"
warmup = "5s"
technique = "tlc"

[[round]]
name = "none round"
map = "arena"
mode = "ffa"
duration = "3s"
warmup = "1s"
ready = true
technique = "none"

[[question]]
id = "fair"
text = "How fair was it?"
kind = "fairness"

[[question]]
id = "lag"
text = "Did you notice lag?"
kind = "yesno"
`

var quiet = slog.New(slog.NewTextHandler(io.Discard, nil))

// rig is a host serving UDP with connect tokens on loopback.
type rig struct {
	host *realtime.Host
	addr string
	kit  *botKit
}

func newRig(t *testing.T) *rig {
	t.Helper()
	r, stop, err := startRig()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(stop)
	return r
}

// startRig starts a rig and returns it with its stop.
func startRig() (*rig, func(), error) {
	h := realtime.NewHost(quiet, nil)
	key, err := token.NewKey()
	if err != nil {
		return nil, nil, err
	}
	l, err := transport.ListenUDP("127.0.0.1:0", transport.UDPOptions{})
	if err != nil {
		return nil, nil, err
	}
	if err := h.RequireTokens(key, l.Addr()); err != nil {
		return nil, nil, err
	}
	kit, err := newBotKit("arena")
	if err != nil {
		return nil, nil, err
	}
	ctx, cancel := context.WithCancel(context.Background())
	go h.Serve(ctx, l)
	return &rig{host: h, addr: l.Addr(), kit: kit}, func() {
		cancel()
		h.Shutdown(context.Background(), "test over")
		l.Close()
	}, nil
}

// botKit plays a participant's seat with a bot through the real client.
type botKit struct {
	m      *world.Map
	grid   *nav.Grid
	params game.Params
	weapon weapon.Weapon
}

func newBotKit(mapName string) (*botKit, error) {
	m, err := world.Load(mapName)
	if err != nil {
		return nil, err
	}
	k := &botKit{m: m, params: game.DefaultParams(), weapon: weapon.Rifle()}
	if k.grid, err = nav.Build(m, &k.params); err != nil {
		return nil, err
	}
	return k, nil
}

// play connects to addr with tok and plays until ctx ends or the server
// ends the session.
func (k *botKit) play(ctx context.Context, addr string, seed uint64, tok []byte) (realtime.ClientStats, error) {
	b, err := bots.New(bots.Config{Skill: 0.9, Attacker: true}, k.m, k.grid, &k.params, &k.weapon, seed)
	if err != nil {
		return realtime.ClientStats{}, err
	}
	conn, err := transport.DialUDP(ctx, addr, transport.UDPOptions{})
	if err != nil {
		return realtime.ClientStats{}, err
	}
	cc := shooter.Client(client.Config{Map: k.m, Movement: &k.params, Name: "participant", Token: tok})
	return realtime.RunClient(ctx, conn, realtime.ClientConfig{Client: cc, Brain: b})
}

// participant joins with code whenever a round is on, plays it, and
// answers each questionnaire put to it, until the study ends. drop, when
// set, is called with a cancel for the session's first connection.
type participant struct {
	code   string
	seed   uint64
	drop   func(cancel func())
	mu     sync.Mutex
	seats  []int // the seat of every admission with a token
	errors []error
}

func (p *participant) run(ctx context.Context, r *rig, d *Driver) {
	first := true
	for ctx.Err() == nil {
		if q, ok := d.Pending(p.code); ok {
			bad := []study.Response{{Question: "fair", Value: 6}, {Question: "lag", Value: 0}}
			if err := d.Answer(p.code, q.Round, bad); !errors.Is(err, study.ErrInvalid) {
				p.fail(fmt.Errorf("fairness 6: %v, want study.ErrInvalid", err))
			}
			ans := []study.Response{{Question: "fair", Value: int(p.seed%11) - 5}, {Question: "lag", Value: q.Round % 2}}
			if err := d.Answer(p.code, q.Round, ans); err != nil {
				p.fail(err)
			}
			continue
		}
		a, err := d.Join(p.code)
		if errors.Is(err, study.ErrEnded) {
			return
		}
		if err != nil {
			p.fail(err)
			return
		}
		if a.Token == nil {
			time.Sleep(50 * time.Millisecond)
			continue
		}
		p.mu.Lock()
		p.seats = append(p.seats, a.Seat)
		p.mu.Unlock()
		sctx, cancel := context.WithCancel(ctx)
		dropping := first && p.drop != nil
		if dropping {
			p.drop(cancel)
		}
		first = false
		_, _ = r.kit.play(sctx, r.addr, p.seed, a.Token)
		cancel()
		if dropping {
			time.Sleep(500 * time.Millisecond) // away, then back with the same code
		}
	}
}

func (p *participant) fail(err error) {
	p.mu.Lock()
	p.errors = append(p.errors, err)
	p.mu.Unlock()
}

// TestTwoRoundsWithPeople plays a two-round study live: two
// participants join by code over UDP (bots through the real client),
// bots hold the other seats, the rounds switch technique, each
// participant answers after each round, and one participant drops in
// the first round and rejoins to the same seat and team with its
// statistics. Everything lands in SQLite: rounds, participants,
// sessions, shots, kills, answers and paths.
func TestTwoRoundsWithPeople(t *testing.T) {
	walltest.Lock(t)
	t0 := time.Now()
	defer func() { t.Logf("the study took %v", time.Since(t0)) }()
	s, err := study.Parse("two.toml", []byte(twoRounds))
	if err != nil {
		t.Fatal(err)
	}
	r := newRig(t)
	d, err := New(Config{Schedule: s, Host: r.host, AnswerWait: 20 * time.Second, Log: quiet})
	if err != nil {
		t.Fatal(err)
	}
	db, err := store.Open(context.Background(), filepath.Join(t.TempDir(), "study.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	w := db.NewWriter(store.WriterOptions{})
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()

	// ann drops 1.5 s into her first connection and comes back 0.5 s
	// later; what her seat had before the drop is read just before it.
	var (
		seen     sync.Mutex // guards before, beforeOK and away
		before   study.SeatState
		beforeOK bool
		away     study.SeatState
	)
	ann := &participant{code: "ann", seed: 11, drop: func(cancel func()) {
		go func() {
			for ctx.Err() == nil {
				if st := d.State(); st.Phase == study.PhasePlaying && st.Seats[0].Connected {
					break
				}
				time.Sleep(20 * time.Millisecond)
			}
			time.Sleep(1500 * time.Millisecond)
			st := d.State().Seats[0]
			seen.Lock()
			before, beforeOK = st, true
			seen.Unlock()
			cancel()
		}()
	}}
	ben := &participant{code: "ben", seed: 12}
	var wg sync.WaitGroup
	for _, p := range []*participant{ann, ben} {
		wg.Add(1)
		go func() { defer wg.Done(); p.run(ctx, r, d) }()
	}
	if st := d.State(); st.Phase != study.PhaseWaiting || len(st.Seats) != 4 || st.Seats[0].Code != "ann" {
		t.Fatalf("before the start: %+v", st)
	}
	if err := d.Command(study.Command{Action: study.ActionStart}); err != nil {
		t.Fatal(err)
	}
	// The pages press ready when a round waits for it.
	go func() {
		for ctx.Err() == nil {
			if d.State().Phase == study.PhaseReady {
				for _, code := range []string{"ann", "ben"} {
					if err := d.Ready(code); err != nil {
						t.Errorf("ready %s: %v", code, err)
					}
				}
			}
			time.Sleep(50 * time.Millisecond)
		}
	}()
	// The state while ann is away: her seat keeps its team and counts.
	go func() {
		for ctx.Err() == nil {
			seen.Lock()
			ok := beforeOK
			seen.Unlock()
			if ok {
				break
			}
			time.Sleep(10 * time.Millisecond)
		}
		time.Sleep(250 * time.Millisecond)
		st := d.State().Seats[0]
		seen.Lock()
		away = st
		seen.Unlock()
	}()
	var afterRound0 study.LiveState
	progress := func(p *study.Plan, _ time.Time) {
		if p.Index == 0 {
			afterRound0 = d.State()
		}
	}
	if err := d.Run(ctx, w, study.Options{Seed: 5, Progress: progress}); err != nil {
		t.Fatal(err)
	}
	cancel()
	wg.Wait()
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	for _, p := range []*participant{ann, ben} {
		if len(p.errors) > 0 {
			t.Fatalf("participant %s: %v", p.code, p.errors)
		}
		for _, seat := range p.seats {
			if want := map[string]int{"ann": 0, "ben": 1}[p.code]; seat != want {
				t.Fatalf("%s admitted to seat %d, want %d", p.code, seat, want)
			}
		}
	}
	seen.Lock()
	defer seen.Unlock()
	if !beforeOK || !before.Connected {
		t.Fatalf("ann was not seen playing before her drop: %+v", before)
	}
	if away.Connected || away.Team != before.Team || away.Kills < before.Kills || away.Deaths < before.Deaths {
		t.Fatalf("ann's seat while away: %+v; before the drop %+v", away, before)
	}

	id := w.StudyID()
	bg := context.Background()
	rounds, _ := store.All[record.Round](bg, db, id)
	if len(rounds) != 2 || rounds[0].Technique == rounds[1].Technique || rounds[0].Ended.IsZero() || rounds[1].Ended.IsZero() {
		t.Fatalf("rounds: %+v", rounds)
	}
	if got := rounds[0].Ended.Sub(rounds[0].Started); got < 3900*time.Millisecond || got > 5*time.Second {
		t.Errorf("round 0 lasted %v, want its 4 s", got)
	}
	parts, _ := store.All[record.Participant](bg, db, id)
	if len(parts) != 8 {
		t.Fatalf("%d participant records, want 8", len(parts))
	}
	for _, p := range parts {
		if wantBot := p.Seat >= 2; p.Bot != wantBot || (p.Seat == 0 && p.Code != "ann") || (p.Seat == 1 && p.LatencyMS != 40) {
			t.Fatalf("participant %+v", p)
		}
	}
	kills, _ := store.All[record.Kill](bg, db, id)
	shots, _ := store.All[record.Shot](bg, db, id)
	paths, _ := store.All[record.Path](bg, db, id)
	sessions, _ := store.All[record.Session](bg, db, id)
	answers, _ := store.All[record.Answer](bg, db, id)
	if len(shots) == 0 || len(kills) == 0 {
		t.Fatalf("%d shots and %d kills stored (%d paths, %d sessions)", len(shots), len(kills), len(paths), len(sessions))
	}
	// Each shot keeps what its client sent: the eye it left from and a
	// view time at most a second from the shot; the paths where each
	// player looked.
	for _, s := range shots {
		if lag := s.At - s.ViewAt; (s.EyeX == 0 && s.EyeY == 0 && s.EyeZ == 0) || lag < -time.Second || lag > time.Second {
			t.Errorf("shot %+v: want the client's eye and view time", s)
			break
		}
	}
	if !slices.ContainsFunc(paths, func(p record.Path) bool { return p.YawDeg != 0 }) {
		t.Errorf("no path point of %d with a yaw", len(paths))
	}
	// The bots fire through the client core, which sends its own verdict
	// on each hitscan shot it predicted (all but those fired before its
	// first snapshot): most shots of this rifle study keep one.
	judged := 0
	for _, s := range shots {
		if s.ClientVerdict == record.VerdictHit || s.ClientVerdict == record.VerdictMiss {
			judged++
		}
	}
	if 2*judged <= len(shots) {
		t.Errorf("%d of %d shots keep their client's verdict, want most", judged, len(shots))
	}
	// The victims' clients send their judgment of every hit on them
	// (objective_sbc): most registered hits keep one (those in a round's
	// last moments may not).
	registered, known := 0, 0
	for _, s := range shots {
		if s.Registered {
			registered++
			if s.SBCKnown {
				known++
			}
		}
	}
	if registered == 0 || 2*known <= registered {
		t.Errorf("%d of %d registered hits keep their victim's judgment, want most", known, registered)
	}
	// Nothing counted twice: what each seat ended round 0 with is what
	// the round's kill records say, across ann's drop and rejoin.
	for seat, ss := range afterRound0.Seats {
		k, dth := 0, 0
		for _, kr := range kills {
			if kr.Round == 0 && kr.Killer == seat && kr.Victim != seat {
				k++
			}
			if kr.Round == 0 && kr.Victim == seat {
				dth++
			}
		}
		if ss.Kills != k || ss.Deaths != dth {
			t.Errorf("seat %d ended round 0 with %d kills and %d deaths; the records hold %d and %d", seat, ss.Kills, ss.Deaths, k, dth)
		}
	}
	connects := 0
	for _, s := range sessions {
		if s.Round == 0 && s.Seat == 0 && s.Kind == record.Connect {
			connects++
			if s.Transport != "udp" {
				t.Errorf("ann's session over %q, want udp", s.Transport)
			}
		}
	}
	if connects != 2 {
		t.Errorf("ann connected %d times in round 0, want 2 (a drop and a rejoin)", connects)
	}
	// Paths at 20 Hz for each of the four seats while alive.
	per := map[[2]int]int{}
	for _, p := range paths {
		per[[2]int{p.Round, p.Seat}]++
		if p.At < 0 || p.At > 4*time.Second+100*time.Millisecond {
			t.Fatalf("path at %v, outside the measured part", p.At)
		}
	}
	for round, secs := range []float64{4, 3} {
		for seat := range 4 {
			if n := per[[2]int{round, seat}]; float64(n) < 10*secs*0.5 {
				t.Errorf("round %d seat %d: %d path samples in %v s", round, seat, n, secs)
			}
		}
	}
	if len(answers) != 8 {
		t.Fatalf("%d answers, want 2 questions x 2 people x 2 rounds: %+v", len(answers), answers)
	}
	for _, a := range answers {
		if a.Seat > 1 || (a.Question == "fair" && a.Kind != record.Fairness) || (a.Question == "lag" && a.Value != a.Round%2) {
			t.Fatalf("answer %+v", a)
		}
	}
	if err := d.Answer("ann", 1, nil); err == nil {
		t.Fatal("answered twice")
	}
	if _, err := d.Join("nobody"); !errors.Is(err, study.ErrUnknownCode) {
		t.Fatalf("join with an unknown code: %v", err)
	}
}

// botsOnly is a study of three bots in one round, for the admin's
// commands.
const botsOnly = `name = "bots"

[[seat]]
bot = true
count = 3

[[technique]]
name = "tlc"

[[round]]
map = "arena"
mode = "ffa"
duration = "2s"

[[round]]
map = "arena"
mode = "ffa"
duration = "1:00"
`

// TestAdminCommands: a pause freezes the round's clock and its records
// (no path is recorded while paused) and lengthens the round by as much;
// an extension lengthens it; a skip ends the second round at once; end
// ends the study after it.
func TestAdminCommands(t *testing.T) {
	walltest.Lock(t)
	s, err := study.Parse("bots.toml", []byte(botsOnly))
	if err != nil {
		t.Fatal(err)
	}
	r := newRig(t)
	d, err := New(Config{Schedule: s, Host: r.host, Log: quiet})
	if err != nil {
		t.Fatal(err)
	}
	if err := d.Command(study.Command{Action: study.ActionPause}); err == nil {
		t.Fatal("paused a study that has not started")
	}
	var mem record.Memory
	done := make(chan error, 1)
	go func() { done <- d.Run(context.Background(), &mem, study.Options{Seed: 1}) }()
	wait := func(phase string, round int) {
		t.Helper()
		for end := time.Now().Add(20 * time.Second); time.Now().Before(end); time.Sleep(10 * time.Millisecond) {
			if st := d.State(); st.Phase == phase && st.Round == round {
				return
			}
		}
		t.Fatalf("no phase %s in round %d: %+v", phase, round, d.State())
	}
	if err := d.Command(study.Command{Action: study.ActionStart}); err != nil {
		t.Fatal(err)
	}
	wait(study.PhasePlaying, 0)
	time.Sleep(500 * time.Millisecond)
	if err := d.Command(study.Command{Action: study.ActionPause}); err != nil {
		t.Fatal(err)
	}
	left := d.State().Remaining
	time.Sleep(time.Second)
	if st := d.State(); st.Phase != study.PhasePaused || st.Remaining != left {
		t.Fatalf("paused: phase %s, %v left, %v at the pause", st.Phase, st.Remaining, left)
	}
	if err := d.Command(study.Command{Action: study.ActionResume}); err != nil {
		t.Fatal(err)
	}
	if err := d.Command(study.Command{Action: study.ActionExtend, Extend: study.Duration(time.Second)}); err != nil {
		t.Fatal(err)
	}
	if err := d.Command(study.Command{Action: study.ActionExtend, Extend: study.Duration(time.Hour)}); !errors.Is(err, study.ErrInvalid) {
		t.Fatalf("extended by an hour: %v, want study.ErrInvalid", err)
	}
	if err := d.Command(study.Command{Action: "restart"}); !errors.Is(err, study.ErrInvalid) {
		t.Fatalf("unknown action: %v, want study.ErrInvalid", err)
	}
	wait(study.PhasePlaying, 1)
	if err := d.Command(study.Command{Action: study.ActionEnd}); err != nil {
		t.Fatal(err)
	}
	if err := d.Command(study.Command{Action: study.ActionSkip}); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if st := d.State(); st.Phase != study.PhaseEnded {
		t.Fatalf("phase %s after the end", st.Phase)
	}
	if _, err := d.Join("x"); !errors.Is(err, study.ErrUnknownCode) {
		t.Fatalf("join: %v", err)
	}
	var rounds []record.Round
	var last time.Duration
	gap := time.Duration(0)
	var prev time.Duration
	for _, rec := range mem.Records {
		switch v := rec.(type) {
		case record.Round:
			if !v.Ended.IsZero() {
				rounds = append(rounds, v)
			}
		case record.Path:
			if v.Round == 0 {
				if v.At > prev {
					gap = max(gap, v.At-prev)
				}
				prev = v.At
				last = max(last, v.At)
			}
		}
	}
	if len(rounds) != 2 {
		t.Fatalf("%d rounds ended, want 2", len(rounds))
	}
	// Round 0: 2 s of play plus 1 s of extension, and a 1 s pause.
	if got := rounds[0].Ended.Sub(rounds[0].Started); got < 3900*time.Millisecond || got > 4600*time.Millisecond {
		t.Errorf("round 0 lasted %v on the wall clock, want 4 s", got)
	}
	if last < 2900*time.Millisecond || last > 3100*time.Millisecond || gap > 200*time.Millisecond {
		t.Errorf("round 0's paths end at %v with a gap of %v, want 3 s of play without a gap", last, gap)
	}
	if got := rounds[1].Ended.Sub(rounds[1].Started); got > 5*time.Second {
		t.Errorf("the skipped round lasted %v", got)
	}
}
