package client

// SetEventNotes makes the client call f for each reliable event as it
// delivers it, once, in sequence order (nil: no notes), so a driver can
// keep an account of what reached the player and compare it with the
// server's (server.Server.SetEventNotes). data is valid during the call
// only; f runs within Step and must not call the client.
func (c *Client) SetEventNotes(f func(seq uint32, kind uint16, data []byte)) { c.notes = f }
