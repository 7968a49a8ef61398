package online

import (
	"context"
	"errors"
	"fmt"
	"net"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"

	"github.com/lagkit/lagkit/agones"
	"github.com/lagkit/lagkit/agones/agonestest"
	"github.com/lagkit/lagkit/study/lobby"
)

// standIn starts a stand-in Kubernetes API server for namespace "study"
// and returns it with a client-go dynamic client talking to it over
// HTTP.
func standIn(t *testing.T) (*agonestest.Cluster, dynamic.Interface) {
	t.Helper()
	c := agonestest.NewCluster("study")
	t.Cleanup(c.Close)
	dc, err := dynamic.NewForConfig(&rest.Config{Host: c.URL()})
	if err != nil {
		t.Fatal(err)
	}
	return c, dc
}

// readyGameServer adds a GameServer of fleet "lagkit" whose game server
// said Ready through its SDK server, with its "web" port a listener on
// loopback.
func readyGameServer(t *testing.T, c *agonestest.Cluster, name string) (*agonestest.Server, *agones.Client, int) {
	t.Helper()
	sdk := agonestest.NewServer(name)
	t.Cleanup(sdk.Close)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			conn.Close()
		}
	}()
	port := ln.Addr().(*net.TCPAddr).Port
	c.Add("lagkit", sdk, agones.Port{Name: "game", Port: 7777}, agones.Port{Name: "web", Port: int32(port)})
	cl := agones.New(sdk.URL(), agones.Options{Wait: time.Second})
	if err := cl.Ready(context.Background()); err != nil {
		t.Fatal(err)
	}
	return sdk, cl, port
}

func codeCounter() func() string {
	n := 0
	return func() string { n++; return fmt.Sprintf("CODE%02d", n) }
}

// TestAgonesAllocates: the Agones allocator creates a
// GameServerAllocation through client-go against the stand-in API
// server, for a GameServer of the fleet (and the extra selector), retries
// the Contention answers, gives the GameServer the match's assignment
// as annotations, and returns each person's link on the allocated
// address and "web" port with their seat's code; the session ends when
// the game server annotates its end and shuts down.
func TestAgonesAllocates(t *testing.T) {
	c, dc := standIn(t)
	sdk, cl, port := readyGameServer(t, c, "lagkit-abc12")
	if err := cl.SetLabel(context.Background(), "kind", "study"); err != nil {
		t.Fatal(err)
	}
	c.Contend(2)
	a := &Agones{Client: dc, Namespace: "study", Fleet: "lagkit", Selector: map[string]string{"agones.dev/sdk-kind": "study"},
		Seats: []int{0, 1, 2}, Study: 7, Seed: 10, NewCode: codeCounter(), Backoff: 10 * time.Millisecond, Poll: 20 * time.Millisecond}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	sess, err := a.Start(ctx, lobby.Match{ID: 3, Group: 1, People: []string{"p-a", "p-b"}})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"p-a": fmt.Sprintf("https://127.0.0.1:%d/?code=CODE01", port),
		"p-b": fmt.Sprintf("https://127.0.0.1:%d/?code=CODE02", port),
	}
	if !reflect.DeepEqual(sess.Links, want) {
		t.Errorf("links %v, want %v", sess.Links, want)
	}
	if n := len(c.Allocations()); n != 3 {
		t.Errorf("%d allocations, want 3 (two answered Contention)", n)
	}
	gs := sdk.GameServer()
	if gs.Status.State != agones.StateAllocated || gs.ObjectMeta.Labels["lagkit.dev/match"] != "3" || gs.ObjectMeta.Labels["lagkit.dev/study"] != "7" {
		t.Errorf("the GameServer after allocation: %s, labels %v", gs.Status.State, gs.ObjectMeta.Labels)
	}
	as, err := ParseAssignment(gs.ObjectMeta.Annotations)
	if err != nil {
		t.Fatal(err)
	}
	wantAs := Assignment{Match: 3, Study: 7, Group: 1, Codes: map[int]string{0: "CODE01", 1: "CODE02"}, Absent: []int{2}, Seed: 13}
	if !reflect.DeepEqual(as, wantAs) {
		t.Errorf("the GameServer's assignment %+v, want %+v", as, wantAs)
	}
	select {
	case <-sess.Done:
		t.Fatal("the session ended before the game server said so")
	case <-time.After(50 * time.Millisecond):
	}
	if err := cl.SetAnnotation(ctx, EndKey, EndDone); err != nil {
		t.Fatal(err)
	}
	if err := cl.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	select {
	case <-sess.Done:
	case <-ctx.Done():
		t.Fatal("the session did not end after the game server's shutdown")
	}
	if err := sess.Err(); err != nil {
		t.Errorf("the session ended with %v, want nil (done)", err)
	}
}

// TestAgonesSessionEnds: a game server that says its session failed, or
// shuts down without saying how it ended, ends the session with an
// error naming it.
func TestAgonesSessionEnds(t *testing.T) {
	for _, tc := range []struct {
		name, end string
		want      string
	}{
		{"failed", "error: live: the database went away", `^game server gs-1: error: live: the database went away$`},
		{"silent", "", `^game server gs-1 was deleted \(Shutdown\) without saying its session ended$`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, dc := standIn(t)
			_, cl, _ := readyGameServer(t, c, "gs-1")
			a := &Agones{Client: dc, Namespace: "study", Fleet: "lagkit", Seats: []int{0}, Study: 1, NewCode: codeCounter(), Poll: 20 * time.Millisecond}
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			sess, err := a.Start(ctx, lobby.Match{People: []string{"p"}})
			if err != nil {
				t.Fatal(err)
			}
			if tc.end != "" {
				if err := cl.SetAnnotation(ctx, EndKey, tc.end); err != nil {
					t.Fatal(err)
				}
			}
			if err := cl.Shutdown(ctx); err != nil {
				t.Fatal(err)
			}
			select {
			case <-sess.Done:
			case <-ctx.Done():
				t.Fatal("no end")
			}
			if err := sess.Err(); err == nil || !regexp.MustCompile(tc.want).MatchString(err.Error()) {
				t.Errorf("err %v, want %s", err, tc.want)
			}
		})
	}
}

// TestAgonesUnAllocated: with no Ready GameServer in the fleet (one of
// another fleet is), the allocator retries UnAllocated with backoff and
// gives up after its Wait with an AllocationError.
func TestAgonesUnAllocated(t *testing.T) {
	c, dc := standIn(t)
	other := agonestest.NewServer("other-1")
	defer other.Close()
	c.Add("other", other, agones.Port{Name: "web", Port: 1})
	if err := agones.New(other.URL(), agones.Options{}).Ready(context.Background()); err != nil {
		t.Fatal(err)
	}
	a := &Agones{Client: dc, Namespace: "study", Fleet: "lagkit", Seats: []int{0}, Study: 1, NewCode: codeCounter(),
		Wait: 300 * time.Millisecond, Backoff: 20 * time.Millisecond}
	_, err := a.Start(context.Background(), lobby.Match{ID: 4, People: []string{"p"}})
	var ae *AllocationError
	if !errors.As(err, &ae) || ae.State != UnAllocated || ae.Tries < 3 || ae.Match != 4 {
		t.Fatalf("err %v (%+v), want an AllocationError after several UnAllocated", err, ae)
	}
	if !strings.Contains(err.Error(), "no game server of fleet lagkit in namespace study") {
		t.Errorf("err %q", err)
	}
	if n := len(c.Allocations()); n != ae.Tries {
		t.Errorf("%d allocations, %d tries", n, ae.Tries)
	}
	if other.GameServer().Status.State != agones.StateReady {
		t.Errorf("the other fleet's GameServer was allocated")
	}
}

// TestAgonesRefused: an API server that refuses the allocation (a
// namespace it does not have) is an error at once, naming the fleet.
func TestAgonesRefused(t *testing.T) {
	_, dc := standIn(t)
	a := &Agones{Client: dc, Namespace: "elsewhere", Fleet: "lagkit", Seats: []int{0}, Study: 1, NewCode: codeCounter()}
	_, err := a.Start(context.Background(), lobby.Match{People: []string{"p"}})
	if err == nil || !strings.Contains(err.Error(), `allocating a game server of fleet lagkit in namespace elsewhere: namespace "elsewhere" not found`) {
		t.Fatalf("err %v", err)
	}
}

// TestAssignmentAnnotations: an assignment survives its annotations,
// and annotations it did not write are refused with the key at fault.
func TestAssignmentAnnotations(t *testing.T) {
	for _, as := range []Assignment{
		{Match: 0, Study: 1, Group: 0, Codes: map[int]string{}, Seed: 1},
		{Match: 12, Study: 99, Group: 3, Codes: map[int]string{0: "AB12CD", 4: "ZZ99ZZ"}, Absent: []int{1, 2, 3}, Seed: 1 << 40, Quick: true},
	} {
		got, err := ParseAssignment(as.Annotations())
		if err != nil || !reflect.DeepEqual(got, as) {
			t.Errorf("%+v came back as %+v, %v", as, got, err)
		}
	}
	good := Assignment{Study: 1, Codes: map[int]string{0: "A"}, Absent: []int{1}}.Annotations()
	for key, bad := range map[string]string{
		"lagkit.dev/study":  "0",
		"lagkit.dev/group":  "-1",
		"lagkit.dev/codes":  "0=A,0=B",
		"lagkit.dev/absent": "x",
		"lagkit.dev/quick":  "maybe",
		"lagkit.dev/seed":   "",
		"lagkit.dev/match":  "",
	} {
		ann := map[string]string{}
		for k, v := range good {
			ann[k] = v
		}
		ann[key] = bad
		if key == "lagkit.dev/match" {
			delete(ann, key)
		}
		if _, err := ParseAssignment(ann); err == nil || !strings.Contains(err.Error(), key) {
			t.Errorf("%s=%q: err %v", key, bad, err)
		}
	}
}

// TestAgonesNoAnswer: an allocated game server whose port never answers
// fails the match within Ready, and its GameServer is deleted rather
// than left to play a session no one can join.
func TestAgonesNoAnswer(t *testing.T) {
	c, dc := standIn(t)
	sdk := agonestest.NewServer("gs-mute")
	defer sdk.Close()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close() // nothing listens there
	c.Add("lagkit", sdk, agones.Port{Name: "web", Port: int32(port)})
	if err := agones.New(sdk.URL(), agones.Options{}).Ready(context.Background()); err != nil {
		t.Fatal(err)
	}
	a := &Agones{Client: dc, Namespace: "study", Fleet: "lagkit", Seats: []int{0}, Study: 1, NewCode: codeCounter(), Ready: 300 * time.Millisecond}
	_, err = a.Start(context.Background(), lobby.Match{ID: 2, People: []string{"p"}})
	if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("online: match 2: game server gs-mute: 127.0.0.1:%d did not answer in 300ms", port)) {
		t.Fatalf("err %v", err)
	}
	if st := sdk.GameServer().Status.State; st != agones.StateShutdown {
		t.Errorf("the GameServer is %s, want deleted (Shutdown)", st)
	}
}

// TestAgonesKill: a session's Kill deletes its GameServer, and the
// session ends saying it was deleted.
func TestAgonesKill(t *testing.T) {
	c, dc := standIn(t)
	sdk, _, _ := readyGameServer(t, c, "gs-k")
	a := &Agones{Client: dc, Namespace: "study", Fleet: "lagkit", Seats: []int{0}, Study: 1, NewCode: codeCounter(), Poll: 20 * time.Millisecond}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	sess, err := a.Start(ctx, lobby.Match{People: []string{"p"}})
	if err != nil {
		t.Fatal(err)
	}
	if err := sess.Kill(); err != nil {
		t.Fatal(err)
	}
	select {
	case <-sess.Done:
	case <-ctx.Done():
		t.Fatal("no end")
	}
	if err := sess.Err(); err == nil || !strings.Contains(err.Error(), "game server gs-k was deleted") {
		t.Errorf("err %v", err)
	}
	if st := sdk.GameServer().Status.State; st != agones.StateShutdown {
		t.Errorf("the GameServer is %s", st)
	}
}

// TestAgonesAPIDown: an API server that does not answer is tried again
// within Wait, then an AllocationError saying why.
func TestAgonesAPIDown(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	dc, err := dynamic.NewForConfig(&rest.Config{Host: "http://" + addr})
	if err != nil {
		t.Fatal(err)
	}
	a := &Agones{Client: dc, Namespace: "study", Fleet: "lagkit", Seats: []int{0}, Study: 1, NewCode: codeCounter(),
		Wait: 200 * time.Millisecond, Backoff: 20 * time.Millisecond}
	_, err = a.Start(context.Background(), lobby.Match{People: []string{"p"}})
	var ae *AllocationError
	if !errors.As(err, &ae) || ae.Tries < 2 || !strings.Contains(ae.State, "connection refused") {
		t.Fatalf("err %v", err)
	}
}

// TestAgonesTwoMatches: matches started at once get GameServers of their
// own, each its match's assignment.
func TestAgonesTwoMatches(t *testing.T) {
	c, dc := standIn(t)
	sdk1, _, port1 := readyGameServer(t, c, "gs-1")
	sdk2, _, port2 := readyGameServer(t, c, "gs-2")
	var mu sync.Mutex
	n := 0
	a := &Agones{Client: dc, Namespace: "study", Fleet: "lagkit", Seats: []int{0}, Study: 1,
		NewCode: func() string { mu.Lock(); defer mu.Unlock(); n++; return fmt.Sprintf("C%d", n) }}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	links := make(chan string, 2)
	var wg sync.WaitGroup
	for id := range 2 {
		wg.Go(func() {
			sess, err := a.Start(ctx, lobby.Match{ID: id, People: []string{fmt.Sprint("p", id)}})
			if err != nil {
				t.Error(err)
				return
			}
			links <- sess.Links[fmt.Sprint("p", id)]
		})
	}
	wg.Wait()
	close(links)
	var got []string
	for l := range links {
		got = append(got, strings.SplitN(l, "?", 2)[0])
	}
	slices.Sort(got)
	want := []string{fmt.Sprintf("https://127.0.0.1:%d/", port1), fmt.Sprintf("https://127.0.0.1:%d/", port2)}
	slices.Sort(want)
	if !reflect.DeepEqual(got, want) {
		t.Errorf("links %v, want one on each GameServer %v", got, want)
	}
	m1, err1 := ParseAssignment(sdk1.GameServer().ObjectMeta.Annotations)
	m2, err2 := ParseAssignment(sdk2.GameServer().ObjectMeta.Annotations)
	if err1 != nil || err2 != nil || m1.Match == m2.Match {
		t.Errorf("assignments %+v, %+v (%v, %v)", m1, m2, err1, err2)
	}
}
