package client

import "github.com/lagkit/lagkit/wire"

// SetEventNotes makes the client call f for each reliable event as it
// delivers it, once, in sequence order (nil: no notes), so a driver can
// keep an account of what reached the player and compare it with the
// server's (server.Server.SetEventNotes). data is valid during the call
// only; f runs within Step and must not call the client.
func (c *Client) SetEventNotes(f func(seq uint32, kind uint16, data []byte)) { c.notes = f }

// reportAck counts the server's answer to one of the player's reports.
func (c *Client) reportAck(data []byte) {
	var e wire.ReportAck
	if wire.DecodeReportAck(data, &e) != nil {
		c.stats.Malformed++
		return
	}
	if e.Kept {
		c.stats.ReportsKept++
	} else {
		c.stats.ReportsRefused++
	}
}
