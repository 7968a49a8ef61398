package client

import (
	"math/bits"

	"github.com/lagkit/lagkit/game"
	"github.com/lagkit/lagkit/wire"
)

// viewEntities puts the entities of snapshot sn (Config.FirstEntity and
// up) in the view the predicting step sees, as the server sent them.
func (c *Client) viewEntities(sn *wire.Snapshot) {
	v := &c.view
	v.Reset()
	for w := c.cfg.FirstEntity / 64; w < len(sn.Present); w++ {
		word := sn.Present[w]
		if first := c.cfg.FirstEntity - w*64; first > 0 {
			word &^= 1<<first - 1 // the slots below FirstEntity
		}
		for word != 0 {
			id := w*64 + bits.TrailingZeros64(word)
			word &= word - 1
			if id == c.id {
				continue
			}
			st := sn.Entities[id].State()
			if sn.EntityGame != nil {
				st.Game = sn.EntityGame[id]
			}
			v.Add(id, st)
		}
	}
}

// SetMatchState sets the game's match state the predicting step sees
// (game.MatchView.Match), from what the game heard of the server's
// (server.Server.SetMatchState): its events, its entities. The server's
// own is not sent; a step that reads it predicts exactly once the
// client's agrees with it.
func (c *Client) SetMatchState(st game.State) { c.view.SetMatch(st) }

// View returns the view of the match the predicting step sees.
func (c *Client) View() *game.MatchView { return &c.view }
