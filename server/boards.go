package server

import "github.com/lagkit/lagkit/wire"

// Scoreboard buffers. The scoreboard goes to every client once a second
// as reliable events whose data all clients share, and each client
// holds it until it acknowledges it: a buffer may outlive its tick by
// as long as the slowest client takes. The server keeps the buffers it
// made and reuses one once no client's queue holds any part of it, so
// that a tick allocates nothing in a steady state. A client that holds
// old scoreboards (it stops acknowledging) keeps their buffers out of
// use until it acknowledges or is dropped for its backlog; past
// maxBoards buffers held, a scoreboard gets a buffer of its own, not
// kept.

// maxBoards bounds the scoreboard buffers kept for reuse.
const maxBoards = 32

// boardBuf returns an empty buffer of capacity at least size for a
// scoreboard's parts, and its mark for the events that carry them (0:
// a buffer not kept, which the garbage collector frees).
func (s *Server) boardBuf(size int) ([]byte, uint8) {
	for i, b := range s.boards {
		if cap(b) >= size && !s.boardHeld(uint8(i+1)) {
			return b[:0], uint8(i + 1)
		}
	}
	b := make([]byte, 0, size)
	if len(s.boards) == maxBoards {
		return b, 0
	}
	s.boards = append(s.boards, b)
	return b, uint8(len(s.boards))
}

// boardHeld reports whether some client's queue still holds an event
// whose data lies in the scoreboard buffer marked mark.
func (s *Server) boardHeld(mark uint8) bool {
	for _, c := range s.clients {
		if c == nil {
			continue
		}
		for i := range c.events {
			if c.events[i].board == mark {
				return true
			}
		}
	}
	return false
}

// sendBoardPart queues a part of a scoreboard, whose data lies in the
// buffer marked mark, for c.
func (s *Server) sendBoardPart(c *client, data []byte, mark uint8) {
	n := len(c.events)
	s.sendEvent(c, wire.EventScoreboard, data)
	if len(c.events) > n {
		c.events[n].board = mark
	}
}
