// Package lobby groups an online study's participants into matches as
// they arrive: one participation per participant id, a prescreen with
// the schedule's admission rules, matches of the schedule's size formed
// in order of arrival, bots in the seats left empty when a wait runs
// out, counterbalancing groups balanced as matches form, dropouts, and
// completion codes a recruitment platform can check.
//
// Like lagkit's server and client cores the lobby is a state machine
// without I/O: its driver hands it arrivals, prescreen results and the
// time, calls Advance, and reads from the returned Ready the matches to
// allocate a game server for and what happened to whom. Given the same
// calls it makes the same matches.
package lobby

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base32"
	"errors"
	"fmt"
	"net/netip"
	"slices"
	"sort"
	"strings"
	"time"
)

// Config is what the lobby is told of the study.
type Config struct {
	// Study names the study: completion codes are bound to it.
	Study string
	// Seats is how many participants a match seats (the schedule's
	// seats that are not bots), 1 to MaxSeats.
	Seats int
	// MinPeople is how many people a match needs to start once its
	// oldest has waited MaxWait; bots take the other seats (default 1).
	MinPeople int
	// MaxWait is the longest a person waits for a full match before
	// one starts with bots in the empty seats (default DefaultMaxWait).
	MaxWait time.Duration
	// PrescreenTimeout is how long a participant has from arrival to
	// finish the prescreen before the lobby lets them go (default
	// DefaultPrescreenTimeout).
	PrescreenTimeout time.Duration
	// Groups are the counterbalancing groups a match may play (at least
	// one): each names the round trip every round targets.
	Groups []Group
	// Admission is the prescreen's rules.
	Admission Admission
	// Secret keys the completion codes (at least 16 bytes): whoever
	// knows it can make them, so it stays with the study's operator.
	Secret []byte
	// JoinBurst and JoinEvery bound arrivals from one address: a burst
	// of JoinBurst, then one each JoinEvery (defaults 20 and 3 s). A
	// lab behind one address needs a larger burst.
	JoinBurst int
	JoinEvery time.Duration
	// MaxParticipants bounds the participants the lobby remembers, every
	// one ever seen (default 100,000); MaxQueue bounds those waiting for
	// a match (default 4,096).
	MaxParticipants int
	MaxQueue        int
	// DropoutCode gives a participant who dropped out of a match (a
	// bot took the seat) the completion code for the part played; by
	// default they get none.
	DropoutCode bool
}

// Group is one counterbalancing group as the lobby sees it: the round
// trip each of its rounds is played at.
type Group struct {
	Name string
	// TargetRTT is each round's target round trip: injected latency
	// makes up the difference from a participant's own (0: the round
	// targets none).
	TargetRTT []time.Duration
}

// Admission is an online study's prescreen rules.
type Admission struct {
	// MinFPS and MinRefreshHz are the least frame and refresh rate the
	// browser must show (0: any).
	MinFPS       float64
	MinRefreshHz float64
	// PointerLock requires the browser to grant pointer lock.
	PointerLock bool
	// MaxBaseRTT is the largest round trip to the game servers a
	// participant may have (0: any).
	MaxBaseRTT time.Duration
	// OverTarget is what happens to a participant whose round trip
	// exceeds a round's target: OverRefuse (the default) refuses them
	// at prescreen, OverRestrict admits them to the groups whose every
	// target is at or above it.
	OverTarget string
}

// Admission.OverTarget values.
const (
	OverRefuse   = "refuse"
	OverRestrict = "restrict"
)

// Defaults and limits.
const (
	DefaultMaxWait          = 2 * time.Minute
	DefaultPrescreenTimeout = 5 * time.Minute
	MaxSeats                = 128
	maxID                   = 64
	maxReason               = 200
)

// Screen is what a participant's prescreen measured.
type Screen struct {
	FPS         float64
	RefreshHz   float64
	PointerLock bool
	// BaseRTT is the round trip to the game servers over the game's
	// own transport, with nothing injected.
	BaseRTT time.Duration
}

// State is where a participant is.
type State int

// Participant states, in the order a participant passes them.
const (
	Arrived   State = iota // joined, prescreen not passed yet
	Waiting                // admitted, waiting for a match
	Matched                // seated in a match
	Completed              // played the match to its end
	Dropped                // left after arriving, or dropped out of a match
	Refused                // refused at prescreen, or timed out in it
)

var stateNames = [...]string{"arrived", "waiting", "matched", "completed", "dropped", "refused"}

func (s State) String() string {
	if s < 0 || int(s) >= len(stateNames) {
		return fmt.Sprintf("state(%d)", int(s))
	}
	return stateNames[s]
}

// Errors an arrival or a completion can meet.
var (
	ErrNoID         = errors.New("lobby: the link has no participant id")
	ErrBadID        = errors.New("lobby: the participant id is not 1 to 64 letters, digits, '-', '_' or '.'")
	ErrParticipated = errors.New("lobby: this participant id has already taken part")
	ErrFlood        = errors.New("lobby: too many arrivals from this address; try again shortly")
	ErrFull         = errors.New("lobby: the study is full")
	ErrUnknown      = errors.New("lobby: no participant has this id")
	ErrNotComplete  = errors.New("lobby: this participant has not completed the study")
	ErrState        = errors.New("lobby: not at this step")
)

// Match is a match the lobby formed: the driver allocates a game server
// for it and seats People in order, bots in the other Bots seats.
type Match struct {
	ID     int
	Group  int
	People []string
	Bots   int
	Formed time.Duration
	// Waits is how long each of People waited from admission.
	Waits []time.Duration
}

// Event is something that happened to a participant, for the study's
// records and its flow table.
type Event struct {
	At          time.Duration
	Participant string
	// Kind is "arrived", "consented", "admitted", "refused", "matched",
	// "requeued", "dropped" or "completed"; Reason says why for refused,
	// requeued and dropped, and for completed when the match's game
	// server was lost.
	Kind   string
	Reason string
	// Match is the match of matched, dropped (from a match) and
	// completed (-1: none), and of requeued the match whose game server
	// was lost: the lobby's number, counted from 0 by each lobby.
	Match int
	// Session is the study session the match's game server recorded,
	// once the driver told it (MatchSession; 0: not known): what joins
	// the events to the study's records across lobbies.
	Session int64
	// LinkStudy and LinkSession are, in an arrived event, the
	// recruitment platform's study and session ids the participant's
	// join link carried ("": none). The lobby leaves them empty: the
	// service that took the arrival (package study/online) names them.
	LinkStudy, LinkSession string
}

// Ready is what an Advance did: the matches formed, and the events
// since the last Advance. It is valid until the next Advance.
type Ready struct {
	Matches []Match
	Events  []Event
}

// Status is where a participant stands, for the page.
type Status struct {
	State State
	// Reason is why a participant was refused or dropped, or why one
	// requeued is waiting or in a new match (their game server was
	// lost), or completed with it.
	Reason string
	// Ahead is how many admitted people arrived before a waiting one;
	// WaitAtMost is the longest the wait can still last (a match with
	// bots starts by then); Match and Group are a matched one's.
	Ahead      int
	WaitAtMost time.Duration
	Match      int
	Group      int
	// Eligible are the groups a waiting participant may be matched to.
	Eligible []int
	// Consented is set once the participant agreed to the consent.
	Consented bool
}

type person struct {
	id        string
	state     State
	reason    string
	arrived   time.Duration
	admitted  time.Duration
	eligible  []int // groups, for a waiting one
	match     int
	group     int
	session   int64 // the study session of match, once known
	consented bool
	// midMatch marks one dropped out of a match.
	midMatch bool
	// wasMatched and wasRequeued mark one the flow has counted as
	// matched and as requeued: it counts people, not matches.
	wasMatched, wasRequeued bool
}

type bucket struct {
	tokens float64
	at     time.Duration
}

// Lobby is an online study's lobby. Its zero value is not usable: make
// one with New.
type Lobby struct {
	cfg     Config
	people  map[string]*person
	queue   []*person // waiting, in order of admission
	pending []*person // arrived, prescreen not passed, in order of arrival
	matches []Match
	played  []int // matches formed per group
	seated  []int // people seated per group
	over    map[int]bool
	addrs   map[netip.Addr]*bucket
	// maxAddrs bounds addrs: 65,536 buckets are about 5 MB.
	maxAddrs int
	ready    Ready
	flow     Flow
}

// Flow counts participants through the study: the participant-flow
// table of its report.
type Flow struct {
	Arrived, Admitted, Refused, Matched, Completed, Dropped int
	// Consented counts those who agreed to the consent (Consent).
	Consented int
	// Of Dropped, DroppedPrescreen left before passing the prescreen
	// and DroppedWaiting after it, before a match; TimedOut of Refused
	// did not finish the prescreen in time.
	DroppedPrescreen, DroppedWaiting, TimedOut int
	// Bots is how many seats bots took in formed matches.
	Bots int
	// Matched counts the people seated in a match, Requeued those who
	// went back to the queue after their match's game server was lost
	// (each once, however many times), and Lost the people whose part
	// ended with it (of Completed).
	Requeued, Lost int
}

// New checks cfg and makes a lobby.
func New(cfg Config) (*Lobby, error) {
	if cfg.Seats < 1 || cfg.Seats > MaxSeats {
		return nil, fmt.Errorf("lobby: seats %d: want 1 to %d", cfg.Seats, MaxSeats)
	}
	if cfg.MinPeople == 0 {
		cfg.MinPeople = 1
	}
	if cfg.MinPeople < 1 || cfg.MinPeople > cfg.Seats {
		return nil, fmt.Errorf("lobby: min_people %d: want 1 to the %d seats", cfg.MinPeople, cfg.Seats)
	}
	if cfg.MaxWait == 0 {
		cfg.MaxWait = DefaultMaxWait
	}
	if cfg.MaxWait < 0 || cfg.MaxWait > time.Hour {
		return nil, fmt.Errorf("lobby: max_wait %v: want 0 to 1h", cfg.MaxWait)
	}
	if cfg.PrescreenTimeout == 0 {
		cfg.PrescreenTimeout = DefaultPrescreenTimeout
	}
	if cfg.PrescreenTimeout < 0 || cfg.PrescreenTimeout > time.Hour {
		return nil, fmt.Errorf("lobby: prescreen_timeout %v: want 0 to 1h", cfg.PrescreenTimeout)
	}
	if len(cfg.Groups) == 0 {
		return nil, errors.New("lobby: no groups: a study has at least one")
	}
	for i, g := range cfg.Groups {
		for j, t := range g.TargetRTT {
			if t < 0 || t > 5*time.Second {
				return nil, fmt.Errorf("lobby: group %d (%s) round %d: target round trip %v: want 0 to 5s", i, g.Name, j+1, t)
			}
		}
	}
	a := cfg.Admission
	switch a.OverTarget {
	case "":
		cfg.Admission.OverTarget = OverRefuse
	case OverRefuse, OverRestrict:
	default:
		return nil, fmt.Errorf("lobby: over_target %q: want %s or %s", a.OverTarget, OverRefuse, OverRestrict)
	}
	if a.MinFPS < 0 || a.MinFPS > 1000 || a.MinRefreshHz < 0 || a.MinRefreshHz > 1000 {
		return nil, fmt.Errorf("lobby: min_fps %g, min_refresh_hz %g: want 0 to 1000", a.MinFPS, a.MinRefreshHz)
	}
	if a.MaxBaseRTT < 0 || a.MaxBaseRTT > 5*time.Second {
		return nil, fmt.Errorf("lobby: max_base_rtt %v: want 0 to 5s", a.MaxBaseRTT)
	}
	if len(cfg.Secret) < 16 {
		return nil, errors.New("lobby: the completion secret is shorter than 16 bytes")
	}
	if cfg.JoinBurst == 0 {
		cfg.JoinBurst = 20
	}
	if cfg.JoinEvery == 0 {
		cfg.JoinEvery = 3 * time.Second
	}
	if cfg.JoinBurst < 1 || cfg.JoinEvery < 0 {
		return nil, fmt.Errorf("lobby: join_burst %d, join_every %v: want at least 1 and 0", cfg.JoinBurst, cfg.JoinEvery)
	}
	if cfg.MaxParticipants == 0 {
		cfg.MaxParticipants = 100_000
	}
	if cfg.MaxQueue == 0 {
		cfg.MaxQueue = 4096
	}
	if cfg.MaxParticipants < 1 || cfg.MaxQueue < 1 {
		return nil, fmt.Errorf("lobby: max_participants %d, max_queue %d: want at least 1", cfg.MaxParticipants, cfg.MaxQueue)
	}
	return &Lobby{
		cfg:      cfg,
		people:   map[string]*person{},
		played:   make([]int, len(cfg.Groups)),
		seated:   make([]int, len(cfg.Groups)),
		over:     map[int]bool{},
		addrs:    map[netip.Addr]*bucket{},
		maxAddrs: 1 << 16,
	}, nil
}

// checkID checks a participant id as recruitment platforms hand them
// out (Prolific's 24 hex digits, MTurk's worker ids, a lab's codes).
func checkID(id string) error {
	if id == "" {
		return ErrNoID
	}
	if len(id) > maxID {
		return ErrBadID
	}
	for _, r := range id {
		ok := r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' || r == '.'
		if !ok {
			return ErrBadID
		}
	}
	return nil
}

// Arrive takes a participant who opened the study's link from addr. A
// participant already in the lobby (a reload, another tab) is brought
// back where they were and nil is returned; one who completed, dropped
// out or was refused gets ErrParticipated. An arrival refused here
// (ErrFlood, ErrFull, a bad id) leaves no trace.
func (l *Lobby) Arrive(now time.Duration, id string, addr netip.Addr) error {
	if err := checkID(id); err != nil {
		return err
	}
	if p, ok := l.people[id]; ok {
		if p.state >= Completed {
			return ErrParticipated
		}
		return nil
	}
	if len(l.people) >= l.cfg.MaxParticipants || len(l.pending)+len(l.queue) >= l.cfg.MaxQueue {
		return ErrFull
	}
	if !l.take(now, addr) {
		return ErrFlood
	}
	p := &person{id: id, state: Arrived, arrived: now, match: -1, group: -1}
	l.people[id] = p
	l.pending = append(l.pending, p)
	l.flow.Arrived++
	l.event(now, p, "arrived", "")
	return nil
}

// Consent records that an arrived participant agreed to the study's
// consent text, before the prescreen; agreeing again changes nothing.
func (l *Lobby) Consent(now time.Duration, id string) error {
	p, ok := l.people[id]
	if !ok {
		return ErrUnknown
	}
	if p.consented {
		return nil
	}
	if p.state != Arrived {
		return fmt.Errorf("%w: %s is %s, not at the consent", ErrState, id, p.state)
	}
	p.consented = true
	l.flow.Consented++
	l.event(now, p, "consented", "")
	return nil
}

// take takes a token of addr's bucket. The buckets are forgotten once
// full again, so only recent senders hold memory; at most maxAddrs
// addresses are kept (an arrival from another one is refused while
// that many are in their burst).
func (l *Lobby) take(now time.Duration, addr netip.Addr) bool {
	burst := float64(l.cfg.JoinBurst)
	refill := func(b *bucket) {
		if l.cfg.JoinEvery == 0 {
			b.tokens = burst
		} else {
			b.tokens = min(burst, b.tokens+float64(now-b.at)/float64(l.cfg.JoinEvery))
		}
		b.at = now
	}
	b, ok := l.addrs[addr]
	if !ok {
		if len(l.addrs) >= l.maxAddrs {
			for a, o := range l.addrs {
				if refill(o); o.tokens >= burst {
					delete(l.addrs, a)
				}
			}
			if len(l.addrs) >= l.maxAddrs {
				return false
			}
		}
		b = &bucket{tokens: burst, at: now}
		l.addrs[addr] = b
	}
	refill(b)
	if b.tokens < 1 {
		return false
	}
	b.tokens--
	return true
}

// Prescreen judges an arrived participant's screen by the admission
// rules: admitted, they wait for a match; refused, the Status says why.
// It returns the participant's state after.
func (l *Lobby) Prescreen(now time.Duration, id string, s Screen) (State, error) {
	p, ok := l.people[id]
	if !ok {
		return 0, ErrUnknown
	}
	if p.state != Arrived {
		return p.state, fmt.Errorf("%w: %s is %s, not at the prescreen", ErrState, id, p.state)
	}
	if len(l.queue) >= l.cfg.MaxQueue {
		return p.state, ErrFull
	}
	l.pending = remove(l.pending, p)
	eligible, why := l.admit(s)
	if why != "" {
		l.finish(now, p, Refused, why)
		l.flow.Refused++
		return p.state, nil
	}
	p.state, p.admitted, p.eligible = Waiting, now, eligible
	l.queue = append(l.queue, p)
	l.flow.Admitted++
	l.event(now, p, "admitted", "")
	return p.state, nil
}

// admit applies the admission rules to a screen: the groups it may
// play, or why it may play none.
func (l *Lobby) admit(s Screen) ([]int, string) {
	a := l.cfg.Admission
	switch {
	case a.PointerLock && !s.PointerLock:
		return nil, "the browser did not grant pointer lock"
	case a.MinFPS > 0 && s.FPS < a.MinFPS:
		return nil, fmt.Sprintf("frame rate %.0f fps under the %.0f the study needs", s.FPS, a.MinFPS)
	case a.MinRefreshHz > 0 && s.RefreshHz < a.MinRefreshHz:
		return nil, fmt.Sprintf("refresh rate %.0f Hz under the %.0f the study needs", s.RefreshHz, a.MinRefreshHz)
	case s.BaseRTT < 0:
		return nil, "no round trip was measured"
	case a.MaxBaseRTT > 0 && s.BaseRTT > a.MaxBaseRTT:
		return nil, fmt.Sprintf("round trip %s over the %s the study allows", ms(s.BaseRTT), ms(a.MaxBaseRTT))
	}
	var eligible []int
	lowest := time.Duration(-1)
	for g, grp := range l.cfg.Groups {
		ok := true
		for _, t := range grp.TargetRTT {
			if t > 0 && s.BaseRTT > t {
				ok = false
				if lowest < 0 || t < lowest {
					lowest = t
				}
			}
		}
		if ok {
			eligible = append(eligible, g)
		}
	}
	switch {
	case lowest >= 0 && l.cfg.Admission.OverTarget == OverRefuse:
		return nil, fmt.Sprintf("round trip %s over the %s a condition targets", ms(s.BaseRTT), ms(lowest))
	case len(eligible) == 0:
		return nil, fmt.Sprintf("round trip %s over every group's targets", ms(s.BaseRTT))
	}
	return eligible, ""
}

func ms(d time.Duration) string { return fmt.Sprintf("%.0f ms", float64(d)/float64(time.Millisecond)) }

// Leave takes a participant out: one waiting or at the prescreen leaves
// the lobby, one in a match drops out of it (the driver gives the seat
// to a bot). Either way they are Dropped with the reason and cannot
// come back. Leaving a finished participant changes nothing.
func (l *Lobby) Leave(now time.Duration, id, reason string) error {
	p, ok := l.people[id]
	if !ok {
		return ErrUnknown
	}
	if len(reason) > maxReason {
		reason = reason[:maxReason]
	}
	switch p.state {
	case Arrived:
		l.pending = remove(l.pending, p)
		l.flow.DroppedPrescreen++
	case Waiting:
		l.queue = remove(l.queue, p)
		l.flow.DroppedWaiting++
	case Matched:
		p.midMatch = true
	default:
		return nil
	}
	l.flow.Dropped++
	l.finish(now, p, Dropped, reason)
	return nil
}

// MatchOver ends match id: its people still in it completed the study.
func (l *Lobby) MatchOver(now time.Duration, id int) error {
	if id < 0 || id >= len(l.matches) {
		return fmt.Errorf("lobby: no match %d", id)
	}
	if l.over[id] {
		return nil
	}
	l.over[id] = true
	for _, pid := range l.matches[id].People {
		if p := l.people[pid]; p.state == Matched {
			l.flow.Completed++
			l.finish(now, p, Completed, "")
		}
	}
	return nil
}

// MatchLost ends match id, whose game server was lost before its end:
// each of its people still in it whom requeue names goes back to the
// queue, first in line by their first admission and for a match of the
// group they were playing, so that their order of conditions stays the
// one they began; the others complete the study. Either way reason is
// their status.
func (l *Lobby) MatchLost(now time.Duration, id int, requeue []string, reason string) error {
	if id < 0 || id >= len(l.matches) {
		return fmt.Errorf("lobby: no match %d", id)
	}
	if l.over[id] {
		return nil
	}
	l.over[id] = true
	if len(reason) > maxReason {
		reason = reason[:maxReason]
	}
	for _, pid := range l.matches[id].People {
		p := l.people[pid]
		if p.state != Matched {
			continue
		}
		if !slices.Contains(requeue, pid) {
			l.flow.Completed++
			l.flow.Lost++
			l.finish(now, p, Completed, reason)
			continue
		}
		p.state, p.reason, p.eligible = Waiting, reason, []int{p.group}
		// After everyone admitted at or before p: the match's people
		// keep their order.
		i := sort.Search(len(l.queue), func(i int) bool { return l.queue[i].admitted > p.admitted })
		l.queue = slices.Insert(l.queue, i, p)
		if !p.wasRequeued {
			p.wasRequeued = true
			l.flow.Requeued++
		}
		l.event(now, p, "requeued", reason)
	}
	return nil
}

// MatchSession tells the lobby the study session match id's game server
// recorded (its id in the study's records): the events of the match
// from now on carry it (Event.Session), those of the people it seated
// who have not been seated in another match since.
func (l *Lobby) MatchSession(id int, session int64) error {
	if id < 0 || id >= len(l.matches) {
		return fmt.Errorf("lobby: no match %d", id)
	}
	if session <= 0 {
		return fmt.Errorf("lobby: match %d: session %d", id, session)
	}
	for _, pid := range l.matches[id].People {
		if p := l.people[pid]; p.match == id {
			p.session = session
		}
	}
	return nil
}

// Reasons a restored participant's part ended with: the lobby that saw
// them stopped before it did (Restore).
const (
	StoppedInMatch  = "the lobby stopped during their match"
	StoppedRequeued = "the lobby stopped while they waited for a new match after their game server was lost"
)

// Restore tells the lobby of the participants earlier lobbies of the
// study saw, from the events they recorded, in the order they happened
// (At and Match are not read), so that one participation per id holds
// across lobbies: a lobby that stopped and started again, or several
// serving one study in turn. Each participant's last events say where
// they stand:
//
//   - completed, refused at the prescreen or dropped: so they stay,
//     with the reason; arriving again they get ErrParticipated, and
//     Status and Complete answer as for one who ended here (a
//     completion code again, or for one who dropped out of a match
//     the dropout's code when the study gives one);
//   - arrived, at the prescreen or admitted and waiting, never matched:
//     not restored; arriving again they start afresh (consent and
//     prescreen again);
//   - seated in a match the lobby stopped without an end recorded: they
//     dropped out of it (StoppedInMatch); one requeued after a lost game
//     server and waiting when the lobby stopped dropped waiting
//     (StoppedRequeued). Either way the next Advance (or Pending)
//     returns their "dropped" event, with the match's session if the
//     earlier lobby knew it. A match whose game server plays on after
//     its lobby stopped is not followed: its people's end is not known
//     here.
//
// Those restored count towards MaxParticipants; past it, the rest are
// not restored and the error wraps ErrFull. The flow (Flow) counts
// this lobby's own arrivals alone. It returns how many participants it
// restored.
func (l *Lobby) Restore(now time.Duration, evs []Event) (int, error) {
	type past struct {
		state    State
		reason   string
		midMatch bool
		requeued bool
		session  int64
	}
	pasts := map[string]*past{}
	var order []string
	for i, e := range evs {
		if err := checkID(e.Participant); err != nil {
			return 0, fmt.Errorf("lobby: restoring event %d (%s): %w", i, e.Kind, err)
		}
		p := pasts[e.Participant]
		if p == nil {
			p = &past{state: Arrived}
			pasts[e.Participant] = p
			order = append(order, e.Participant)
		}
		if e.Session != 0 {
			p.session = e.Session
		}
		switch e.Kind {
		case "arrived":
			// Again after their earlier record ended unfinished: a
			// fresh arrival.
			*p = past{state: Arrived}
		case "consented":
		case "admitted":
			p.state = Waiting
		case "matched":
			p.state, p.requeued, p.session = Matched, false, e.Session
		case "requeued":
			p.state, p.requeued = Waiting, true
		case "dropped":
			p.midMatch = p.state == Matched
			p.state, p.reason = Dropped, e.Reason
		case "refused":
			p.state, p.reason = Refused, e.Reason
		case "completed":
			p.state, p.reason = Completed, e.Reason
		default:
			return 0, fmt.Errorf("lobby: restoring event %d of %s: kind %q", i, e.Participant, e.Kind)
		}
	}
	restored, left := 0, 0
	for _, id := range order {
		pa := pasts[id]
		if _, ok := l.people[id]; ok || pa.state == Arrived || pa.state == Waiting && !pa.requeued {
			continue
		}
		if len(l.people) >= l.cfg.MaxParticipants {
			left++
			continue
		}
		p := &person{id: id, state: pa.state, reason: pa.reason, match: -1, group: -1, midMatch: pa.midMatch, session: pa.session,
			wasMatched: pa.midMatch || pa.requeued, wasRequeued: pa.requeued}
		l.people[id] = p
		restored++
		switch {
		case pa.state == Matched:
			p.midMatch = true
			l.finish(now, p, Dropped, StoppedInMatch)
		case pa.state == Waiting:
			l.finish(now, p, Dropped, StoppedRequeued)
		}
	}
	if left > 0 {
		return restored, fmt.Errorf("%w: %d participants of earlier lobbies restored, %d more not: max_participants is %d", ErrFull, restored, left, l.cfg.MaxParticipants)
	}
	return restored, nil
}

// finish moves p to a final state, with its event.
func (l *Lobby) finish(now time.Duration, p *person, st State, reason string) {
	p.state, p.reason, p.eligible = st, reason, nil
	l.event(now, p, st.String(), reason)
}

func (l *Lobby) event(now time.Duration, p *person, kind, reason string) {
	l.ready.Events = append(l.ready.Events, Event{At: now, Participant: p.id, Kind: kind, Reason: reason, Match: p.match, Session: p.session})
}

// Advance lets the prescreens that ran out of time go and forms every
// match it can: a full one as soon as enough people wait for a group,
// one with bots once its oldest has waited MaxWait. The returned Ready
// is valid until the next Advance.
func (l *Lobby) Advance(now time.Duration) *Ready {
	l.ready.Matches = l.ready.Matches[:0]
	for len(l.pending) > 0 && now-l.pending[0].arrived >= l.cfg.PrescreenTimeout {
		p := l.pending[0]
		l.pending = l.pending[1:]
		l.flow.Refused++
		l.flow.TimedOut++
		l.finish(now, p, Refused, "the prescreen was not finished in time")
	}
	for l.form(now) {
	}
	r := l.ready
	l.ready.Events = nil
	return &r
}

// form forms one match, if one can be: around the waiting person who
// was admitted first and can be seated, the group that has played
// fewest matches among those this person may play and enough others
// (all the seats, or MinPeople once the wait ran out) wait for.
func (l *Lobby) form(now time.Duration) bool {
	for _, anchor := range l.queue {
		late := now-anchor.admitted >= l.cfg.MaxWait
		best, bestPeople := -1, []*person(nil)
		for _, g := range anchor.eligible {
			people := []*person{anchor}
			for _, p := range l.queue {
				if len(people) == l.cfg.Seats {
					break
				}
				if p != anchor && slices.Contains(p.eligible, g) {
					people = append(people, p)
				}
			}
			if len(people) < l.cfg.Seats && (!late || len(people) < l.cfg.MinPeople) {
				continue
			}
			if best < 0 || l.played[g] < l.played[best] || l.played[g] == l.played[best] && l.seated[g] < l.seated[best] {
				best, bestPeople = g, people
			}
		}
		if best >= 0 {
			l.seat(now, best, bestPeople)
			return true
		}
	}
	return false
}

// seat forms a match of group g with people, in order of admission.
func (l *Lobby) seat(now time.Duration, g int, people []*person) {
	slices.SortStableFunc(people, func(a, b *person) int { return int(a.admitted - b.admitted) })
	m := Match{ID: len(l.matches), Group: g, Bots: l.cfg.Seats - len(people), Formed: now}
	for _, p := range people {
		l.queue = remove(l.queue, p)
		// A requeued one keeps the reason: their page says why this
		// is a new match.
		p.state, p.match, p.group, p.eligible, p.session = Matched, m.ID, g, nil, 0
		m.People = append(m.People, p.id)
		m.Waits = append(m.Waits, now-p.admitted)
		if !p.wasMatched {
			p.wasMatched = true
			l.flow.Matched++
		}
		l.event(now, p, "matched", "")
	}
	l.played[g]++
	l.seated[g] += len(people)
	l.flow.Bots += m.Bots
	l.matches = append(l.matches, m)
	l.ready.Matches = append(l.ready.Matches, m)
}

func remove(ps []*person, p *person) []*person {
	if i := slices.Index(ps, p); i >= 0 {
		return slices.Delete(ps, i, i+1)
	}
	return ps
}

// Status says where participant id stands.
func (l *Lobby) Status(now time.Duration, id string) (Status, error) {
	p, ok := l.people[id]
	if !ok {
		return Status{}, ErrUnknown
	}
	st := Status{State: p.state, Reason: p.reason, Match: p.match, Group: p.group, Eligible: slices.Clone(p.eligible), Consented: p.consented}
	if p.state == Waiting {
		st.Ahead = slices.Index(l.queue, p)
		// p's own wait running out starts a match with bots (with
		// MinPeople 1; a larger MinPeople may keep p past it, and the
		// bound reads 0 then).
		st.WaitAtMost = max(0, l.cfg.MaxWait-(now-p.admitted))
	}
	return st, nil
}

// Pending takes the events since the last Advance, which that Advance
// would have returned: a driver that stops advancing (a lobby shutting
// down, its last matches ending) takes the last ones with it.
func (l *Lobby) Pending() []Event {
	evs := l.ready.Events
	l.ready.Events = nil
	return evs
}

// Flow returns the participant-flow counts so far.
func (l *Lobby) Flow() Flow { return l.flow }

// Played returns how many matches each group has played so far.
func (l *Lobby) Played() []int { return slices.Clone(l.played) }

// codeLen is a completion code's length: 16 base32 letters, 80 bits.
const codeLen = 16

// Complete returns the completion code of a participant who completed
// the study: keyed by the study's secret, bound to the study and the
// participant, the same each time it is asked for.
func (l *Lobby) Complete(id string) (string, error) {
	p, ok := l.people[id]
	if !ok {
		return "", ErrUnknown
	}
	if p.state != Completed && !(p.state == Dropped && p.midMatch && l.cfg.DropoutCode) {
		return "", fmt.Errorf("%w (%s is %s)", ErrNotComplete, id, p.state)
	}
	return l.code(id), nil
}

func (l *Lobby) code(id string) string {
	h := hmac.New(sha256.New, l.cfg.Secret)
	h.Write([]byte(l.cfg.Study))
	h.Write([]byte{0})
	h.Write([]byte(id))
	return base32.StdEncoding.EncodeToString(h.Sum(nil))[:codeLen]
}

// Verify reports whether code is participant id's completion code: a
// platform's check that a completion was not forged. It checks the code
// itself, so it holds for an id this process has not seen (another
// lobby of the study, or a restarted one).
func (l *Lobby) Verify(id, code string) bool {
	if checkID(id) != nil || len(code) != codeLen {
		return false
	}
	return hmac.Equal([]byte(l.code(id)), []byte(strings.ToUpper(code)))
}
