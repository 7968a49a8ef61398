package online

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/url"
	"strconv"
	"sync"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/dynamic"

	"github.com/lagkit/lagkit/study/lobby"
)

// The Agones resources the allocator uses (Agones, GameServerAllocation
// and GameServer references).
var (
	AllocationResource = schema.GroupVersionResource{Group: "allocation.agones.dev", Version: "v1", Resource: "gameserverallocations"}
	GameServerResource = schema.GroupVersionResource{Group: "agones.dev", Version: "v1", Resource: "gameservers"}
)

// Allocation states (GameServerAllocation status.state).
const (
	Allocated   = "Allocated"
	UnAllocated = "UnAllocated"
	Contention  = "Contention"
)

// EndAnnotation is the annotation a study's game server sets on its
// GameServer when its session ended, before it asks Agones to shut the
// GameServer down: "done" when the study played to its end, else what
// ended it. The game server sets it through the SDK server, which puts
// "agones.dev/sdk-" before the key it is given, EndKey.
const (
	EndKey        = "lagkit-end"
	EndAnnotation = "agones.dev/sdk-" + EndKey
	EndDone       = "done"
)

// FleetLabel is the label Agones gives a Fleet's GameServers, naming
// the Fleet.
const FleetLabel = "agones.dev/fleet"

// Agones allocates each match a GameServer of an Agones Fleet through
// the Kubernetes API: a GameServerAllocation whose metadata carries the
// match's Assignment as annotations. The game server, waiting Ready
// (lagkit study run --agones), reads them once Allocated and serves the
// match's session; its participants' links are its address and the
// port named PortName with each seat's code, as lagkit study run prints
// them. The allocator waits until that port answers before it gives
// the links, and watches the GameServer until its session ended
// (EndAnnotation) or it is gone.
type Agones struct {
	// Client talks to the Kubernetes API.
	Client dynamic.Interface
	// Namespace and Fleet say where the game servers are; Selector adds
	// labels the allocated GameServer must have.
	Namespace, Fleet string
	Selector         map[string]string
	// Seats are the schedule's seats for people, in order (as Local's).
	Seats []int
	// Study is the study every match's session joins; Seed the seed of
	// the bots (match m's session plays Seed+m); Quick cuts rounds
	// short.
	Study int64
	Seed  uint64
	Quick bool
	// NewCode makes a participant code.
	NewCode func() string
	// PortName is the GameServer port the participants' browsers use
	// (default "web").
	PortName string
	// Wait bounds how long an allocation is retried while the Fleet has
	// no Ready GameServer (UnAllocated), others took it first
	// (Contention) or the API server cannot answer (default 1 min); the pause between tries doubles
	// from Backoff (default 250 ms) to 5 s.
	Wait, Backoff time.Duration
	// Ready bounds the wait for the game server's port to answer
	// (default 60 s).
	Ready time.Duration
	// Poll is the pause before the GameServer is read again after the
	// Kubernetes API failed to answer (default 2 s).
	Poll time.Duration
	// Allocated, if set, is told of each match allocated: its seats
	// left to bots, and the GameServer's name and address.
	Allocated func(m lobby.Match, absent []int, gameServer, addr string)
	Log       *slog.Logger

	once sync.Once
}

// AllocationError is an allocation that found no GameServer within the
// allocator's Wait.
type AllocationError struct {
	Match int
	// State is the last answer's state (UnAllocated, Contention), or its
	// error when the API server failed to answer.
	State       string
	Tries       int
	Waited      time.Duration
	Fleet, Into string
}

func (e *AllocationError) Error() string {
	return fmt.Sprintf("online: match %d: no game server of fleet %s in namespace %s after %d allocations in %v (last: %s)",
		e.Match, e.Fleet, e.Into, e.Tries, e.Waited.Round(time.Millisecond), e.State)
}

func (a *Agones) defaults() {
	if a.PortName == "" {
		a.PortName = "web"
	}
	if a.Wait <= 0 {
		a.Wait = time.Minute
	}
	if a.Backoff <= 0 {
		a.Backoff = 250 * time.Millisecond
	}
	if a.Ready <= 0 {
		a.Ready = time.Minute
	}
	if a.Poll <= 0 {
		a.Poll = 2 * time.Second
	}
	if a.Log == nil {
		a.Log = slog.Default()
	}
}

// Start allocates a GameServer for match m and returns its participants'
// links once the game server answers on its port.
func (a *Agones) Start(ctx context.Context, m lobby.Match) (*Session, error) {
	a.once.Do(a.defaults)
	if a.Client == nil || a.Fleet == "" || a.Namespace == "" {
		return nil, errors.New("online: the Agones allocator needs a client, a namespace and a fleet")
	}
	if len(m.People) > len(a.Seats) {
		return nil, fmt.Errorf("online: match %d has %d people for %d seats", m.ID, len(m.People), len(a.Seats))
	}
	codes, who, absent := seatPeople(a.Seats, m, a.NewCode)
	as := Assignment{Match: m.ID, Study: a.Study, Group: m.Group, Codes: codes, Absent: absent, Seed: a.Seed + uint64(m.ID), Quick: a.Quick}
	st, err := a.allocate(ctx, as)
	if err != nil {
		return nil, err
	}
	a.Log.Info("allocated", "match", m.ID, "gameserver", st.name, "address", st.address, "port", st.port)
	host := net.JoinHostPort(st.address, strconv.Itoa(st.port))
	if a.Allocated != nil {
		a.Allocated(m, absent, st.name, host)
	}
	links := map[string]string{}
	for seat, id := range who {
		// As lagkit study run prints a seat's link.
		links[id] = "https://" + host + "/?code=" + url.QueryEscape(codes[seat])
	}
	gs := a.Client.Resource(GameServerResource).Namespace(a.Namespace)
	kill := func() error {
		return gs.Delete(context.WithoutCancel(ctx), st.name, metav1.DeleteOptions{})
	}
	// A match that fails from here would leave its session playing with
	// no one: its GameServer is deleted, as a local process that gave
	// no links is killed.
	fail := func(err error) (*Session, error) {
		if kerr := kill(); kerr != nil {
			a.Log.Error("gameserver delete", "name", st.name, "err", kerr)
		}
		return nil, fmt.Errorf("online: match %d: game server %s: %w", m.ID, st.name, err)
	}
	// The GameServer as allocated: the watch that follows it starts from
	// this version, before the game server could have ended its session.
	first, err := gs.Get(ctx, st.name, metav1.GetOptions{})
	if err != nil {
		return fail(err)
	}
	if err := a.answers(ctx, host); err != nil {
		return fail(err)
	}
	done := make(chan struct{})
	var end error
	go func() {
		end = a.follow(ctx, first)
		close(done)
	}()
	byID := map[string]string{}
	for seat, id := range who {
		byID[id] = codes[seat]
	}
	return &Session{Links: links, Done: done, Err: func() error { return end }, Kill: kill, Codes: byID}, nil
}

// allocated is what an Allocated answer says.
type allocated struct {
	name, address string
	port          int
}

// allocate creates GameServerAllocations for as until one is Allocated,
// retrying UnAllocated and Contention with backoff within a.Wait.
func (a *Agones) allocate(ctx context.Context, as Assignment) (allocated, error) {
	obj := a.allocation(as)
	start := time.Now()
	pause := a.Backoff
	for try := 1; ; try++ {
		got, err := a.Client.Resource(AllocationResource).Namespace(a.Namespace).Create(ctx, obj.DeepCopy(), metav1.CreateOptions{})
		var state string
		switch {
		case err != nil && (!transient(err) || ctx.Err() != nil):
			return allocated{}, fmt.Errorf("online: match %d: allocating a game server of fleet %s in namespace %s: %w", as.Match, a.Fleet, a.Namespace, err)
		case err != nil:
			state = err.Error()
		default:
			state, _, _ = unstructured.NestedString(got.Object, "status", "state")
			switch state {
			case Allocated:
				return a.allocatedStatus(as.Match, got)
			case UnAllocated, Contention:
			default:
				return allocated{}, fmt.Errorf("online: match %d: allocation answered state %q, want Allocated, UnAllocated or Contention", as.Match, state)
			}
		}
		waited := time.Since(start)
		if waited+pause > a.Wait {
			return allocated{}, &AllocationError{Match: as.Match, State: state, Tries: try, Waited: waited, Fleet: a.Fleet, Into: a.Namespace}
		}
		a.Log.Info("allocation", "match", as.Match, "state", state, "try", try, "pause", pause)
		t := time.NewTimer(pause)
		select {
		case <-ctx.Done():
			t.Stop()
			return allocated{}, fmt.Errorf("online: match %d: allocation: %w", as.Match, ctx.Err())
		case <-t.C:
		}
		pause = min(2*pause, 5*time.Second)
	}
}

// transient reports whether an allocation's error may go away by
// itself: the API server or Agones' allocator unavailable, overloaded,
// timing out or failing inside, or no answer at all. A refusal (no such
// namespace, forbidden, invalid) is for good.
func transient(err error) bool {
	if apierrors.IsServiceUnavailable(err) || apierrors.IsServerTimeout(err) || apierrors.IsTimeout(err) ||
		apierrors.IsTooManyRequests(err) || apierrors.IsInternalError(err) {
		return true
	}
	var status apierrors.APIStatus
	return !errors.As(err, &status)
}

// allocation is the GameServerAllocation for as: a Ready GameServer of
// the Fleet with the Selector's labels, given as's annotations and the
// labels lagkit.dev/study and lagkit.dev/match.
func (a *Agones) allocation(as Assignment) *unstructured.Unstructured {
	match := map[string]any{FleetLabel: a.Fleet}
	for k, v := range a.Selector {
		match[k] = v
	}
	ann := map[string]any{}
	for k, v := range as.Annotations() {
		ann[k] = v
	}
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": AllocationResource.GroupVersion().String(),
		"kind":       "GameServerAllocation",
		"metadata":   map[string]any{"generateName": a.Fleet + "-", "namespace": a.Namespace},
		"spec": map[string]any{
			"selectors": []any{map[string]any{"matchLabels": match}},
			"metadata": map[string]any{
				"labels": map[string]any{
					AnnotationPrefix + "study": strconv.FormatInt(as.Study, 10),
					AnnotationPrefix + "match": strconv.Itoa(as.Match),
				},
				"annotations": ann,
			},
		},
	}}
}

// allocatedStatus reads an Allocated answer's status: the GameServer's
// name, address and the port named a.PortName.
func (a *Agones) allocatedStatus(match int, got *unstructured.Unstructured) (allocated, error) {
	var st allocated
	st.name, _, _ = unstructured.NestedString(got.Object, "status", "gameServerName")
	st.address, _, _ = unstructured.NestedString(got.Object, "status", "address")
	ports, _, _ := unstructured.NestedSlice(got.Object, "status", "ports")
	var names []string
	for _, p := range ports {
		pm, _ := p.(map[string]any)
		name, _, _ := unstructured.NestedString(pm, "name")
		names = append(names, name)
		if name == a.PortName {
			n, _, _ := unstructured.NestedInt64(pm, "port")
			st.port = int(n)
		}
	}
	switch {
	case st.name == "" || st.address == "":
		return st, fmt.Errorf("online: match %d: allocation Allocated without gameServerName and address", match)
	case st.port < 1 || st.port > 65535:
		return st, fmt.Errorf("online: match %d: game server %s has no port %q (its ports: %v)", match, st.name, a.PortName, names)
	}
	return st, nil
}

// answers waits until host accepts a TCP connection: the game server
// listens once it read its match, a moment after it was allocated.
func (a *Agones) answers(ctx context.Context, host string) error {
	ctx, cancel := context.WithTimeout(ctx, a.Ready)
	defer cancel()
	var d net.Dialer
	pause := 50 * time.Millisecond
	for {
		c, err := d.DialContext(ctx, "tcp", host)
		if err == nil {
			return c.Close()
		}
		t := time.NewTimer(pause)
		select {
		case <-ctx.Done():
			t.Stop()
			return fmt.Errorf("%s did not answer in %v: %v", host, a.Ready, err)
		case <-t.C:
		}
		pause = min(2*pause, time.Second)
	}
}

// follow watches GameServer obj, as read after its allocation, until
// its session ended: nil when it says the study played to its end, else
// what ended it. A watch from the resource version last seen sees every
// change, so the annotation set just before Shutdown is seen even if
// Agones deletes the GameServer at once (its deletion's event carries
// the last state).
func (a *Agones) follow(ctx context.Context, obj *unstructured.Unstructured) error {
	name := obj.GetName()
	gs := a.Client.Resource(GameServerResource).Namespace(a.Namespace)
	stopped := func() error {
		return fmt.Errorf("the lobby stopped following game server %s, which serves on", name)
	}
	pause := a.Poll
	failures := 0
	failed := func(err error) error {
		if failures++; failures == 1 || failures%30 == 0 {
			a.Log.Warn("gameserver", "name", name, "err", err)
		}
		t := time.NewTimer(pause)
		defer t.Stop()
		select {
		case <-ctx.Done():
			return stopped()
		case <-t.C:
		}
		return nil
	}
	// read is set when the watch can no longer go on from the version
	// last seen (it expired): the GameServer is read anew.
	read := false
	for {
		if read {
			got, err := gs.Get(ctx, name, metav1.GetOptions{})
			switch {
			case apierrors.IsNotFound(err):
				return fmt.Errorf("game server %s is gone without saying its session ended", name)
			case err != nil && ctx.Err() != nil:
				return stopped()
			case err != nil:
				// The API server may be out of reach a while; the session
				// goes on regardless.
				if err := failed(err); err != nil {
					return err
				}
				continue
			}
			obj, read = got, false
		}
		if done, err := ended(name, obj, false); done {
			return err
		}
		w, err := gs.Watch(ctx, metav1.ListOptions{FieldSelector: "metadata.name=" + name, ResourceVersion: obj.GetResourceVersion()})
		if err != nil {
			if ctx.Err() != nil {
				return stopped()
			}
			if apierrors.IsGone(err) || apierrors.IsResourceExpired(err) {
				read = true
			} else if err := failed(err); err != nil {
				return err
			}
			continue
		}
		for ev := range w.ResultChan() {
			u, ok := ev.Object.(*unstructured.Unstructured)
			if ev.Type == watch.Error || !ok {
				read = true // an expired version, most likely
				break
			}
			failures = 0
			obj = u
			if done, err := ended(name, u, ev.Type == watch.Deleted); done {
				w.Stop()
				return err
			}
		}
		w.Stop()
		if ctx.Err() != nil {
			return stopped()
		}
	}
}

// ended says whether GameServer obj (named name; deleted: its last
// state) is over, and how its session ended.
func ended(name string, obj *unstructured.Unstructured, deleted bool) (bool, error) {
	if end, ok := obj.GetAnnotations()[EndAnnotation]; ok {
		if end == EndDone {
			return true, nil
		}
		return true, fmt.Errorf("game server %s: %s", name, end)
	}
	state, _, _ := unstructured.NestedString(obj.Object, "status", "state")
	switch {
	case deleted:
		return true, fmt.Errorf("game server %s was deleted (%s) without saying its session ended", name, state)
	case state == "Unhealthy" || state == "Error" || state == "Shutdown":
		return true, fmt.Errorf("game server %s is %s without saying its session ended", name, state)
	}
	return false, nil
}
