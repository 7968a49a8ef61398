package online

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os/exec"
	"regexp"
	"strconv"
	"sync"
	"time"

	"github.com/lagkit/lagkit/study/lobby"
)

// Local allocates game servers on this machine: each match's session
// is a process of its own (lagkit study run for the match's group, on
// a port of its own), at most Max at once.
type Local struct {
	// Seats are the schedule's seats for people, in order: a match's
	// people take them in the lobby's order, and the rest are played
	// by bots.
	Seats []int
	// Command returns the process that serves match m: its group, each
	// seat's participant code, the seats bots play, and the port its
	// browsers connect to. The process prints one line per person's
	// seat, "seat N: URL", then "dropout seat N: REASON" for each person
	// who left mid-match and whose seat a bot took, and exits 0 once the
	// study is over.
	Command func(ctx context.Context, m lobby.Match, codes map[int]string, absent []int, port int) *exec.Cmd
	// Max bounds the sessions running at once (default 4); a match
	// beyond it waits for a slot.
	Max int
	// Ready bounds the wait for a session's links (default 60 s).
	Ready time.Duration
	// NewCode makes a participant code.
	NewCode func() string
	Log     *slog.Logger

	once  sync.Once
	slots chan struct{}
}

var (
	seatLine    = regexp.MustCompile(`^seat (\d+): (https?://\S+)$`)
	dropoutLine = regexp.MustCompile(`^dropout seat (\d+): (.{1,200})$`)
)

// Start runs match m's session and returns its participants' links.
func (l *Local) Start(ctx context.Context, m lobby.Match) (*Session, error) {
	l.once.Do(func() {
		n := l.Max
		if n <= 0 {
			n = 4
		}
		l.slots = make(chan struct{}, n)
		if l.Ready == 0 {
			l.Ready = time.Minute
		}
		if l.Log == nil {
			l.Log = slog.Default()
		}
	})
	if len(m.People) > len(l.Seats) {
		return nil, fmt.Errorf("online: match %d has %d people for %d seats", m.ID, len(m.People), len(l.Seats))
	}
	select {
	case l.slots <- struct{}{}:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	release := sync.OnceFunc(func() { <-l.slots })
	codes, who, absent := seatPeople(l.Seats, m, l.NewCode)
	// A process that exits before printing its links most likely found
	// its port taken between freePort and its own listen: it is started
	// again on another, at most startTries times.
	var err error
	for try := 1; ; try++ {
		var sess *Session
		var early bool
		sess, early, err = l.launch(ctx, m, codes, absent, who, release)
		if err == nil {
			return sess, nil
		}
		if !early || try == startTries || ctx.Err() != nil {
			break
		}
		l.Log.Warn("session", "match", m.ID, "try", try, "err", err)
	}
	release()
	return nil, err
}

// seatPeople gives match m's people the first of seats in order, each
// with a new participant code: codes and who (the participant's id) by
// seat, and the seats left to bots (absent).
func seatPeople(seats []int, m lobby.Match, newCode func() string) (codes, who map[int]string, absent []int) {
	codes, who = map[int]string{}, map[int]string{}
	for i, seat := range seats {
		if i < len(m.People) {
			codes[seat], who[seat] = newCode(), m.People[i]
		} else {
			absent = append(absent, seat)
		}
	}
	return codes, who, absent
}

// startTries bounds the starts of a match's process that exit before
// printing their links.
const startTries = 3

// launch starts match m's process on a free port and waits for its
// links. A session that started holds the slot until its process exits
// (release); one that did not is killed and waited for, and early says
// whether it exited by itself before printing every link.
func (l *Local) launch(ctx context.Context, m lobby.Match, codes map[int]string, absent []int, who map[int]string, release func()) (sess *Session, early bool, err error) {
	port, err := freePort()
	if err != nil {
		return nil, false, err
	}
	cmd := l.Command(ctx, m, codes, absent, port)
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, false, err
	}
	if err := cmd.Start(); err != nil {
		return nil, false, fmt.Errorf("online: match %d: %w", m.ID, err)
	}
	links := map[string]string{}
	found := make(chan error, 1)
	// Each person drops out at most once: the channel never fills.
	dropouts := make(chan Dropout, len(who))
	told := map[int]bool{}
	read := make(chan struct{})
	go func() {
		defer close(read)
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			line := sc.Text()
			l.Log.Debug("session", "match", m.ID, "line", line)
			if g := seatLine.FindStringSubmatch(line); g != nil && len(links) < len(who) {
				seat, _ := strconv.Atoi(g[1])
				if id, ok := who[seat]; ok {
					links[id] = g[2]
				}
				if len(links) == len(who) {
					found <- nil
				}
			}
			if g := dropoutLine.FindStringSubmatch(line); g != nil && len(links) == len(who) {
				seat, _ := strconv.Atoi(g[1])
				if id, ok := who[seat]; ok && !told[seat] {
					told[seat] = true
					dropouts <- Dropout{ID: id, Reason: g[2]}
				}
			}
		}
		if len(links) < len(who) {
			found <- fmt.Errorf("online: match %d: the session printed %d of its %d links", m.ID, len(links), len(who))
		}
		_, _ = io.Copy(io.Discard, out)
	}()
	select {
	case err = <-found:
		early = err != nil
	case <-time.After(l.Ready):
		err = fmt.Errorf("online: match %d: no links after %v", m.ID, l.Ready)
	}
	done := make(chan struct{})
	exited := make(chan struct{})
	var waitErr error
	started := err == nil
	go func() {
		waitErr = cmd.Wait()
		close(exited)
		if started {
			// Wait closed the pipe: what the process printed last has
			// been read, or is lost with it, once the reader is done.
			<-read
			release()
			close(done)
		}
	}()
	if err != nil {
		_ = cmd.Process.Kill()
		<-exited
		return nil, early, err
	}
	byID := map[string]string{}
	for seat, id := range who {
		byID[id] = codes[seat]
	}
	return &Session{Links: links, Done: done, Kill: cmd.Process.Kill, Dropouts: dropouts, Codes: byID, Err: func() error {
		var ee *exec.ExitError
		if errors.As(waitErr, &ee) {
			if ee.ExitCode() < 0 {
				return fmt.Errorf("the session's process ended: %v", ee) // a signal
			}
			return fmt.Errorf("the session exited with status %d", ee.ExitCode())
		}
		return waitErr
	}}, false, nil
}

// freePort returns a TCP port on loopback that was free a moment ago.
func freePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}
