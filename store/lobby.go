package store

import (
	"context"
	"fmt"
	"time"
)

// LobbyEvent is one thing that happened to a participant in an online
// study's lobby (package study/lobby's Event), as stored.
type LobbyEvent struct {
	// Lobby is when the lobby process that saw it started: the match
	// numbers of one lobby.
	Lobby time.Time
	At    time.Time
	// Participant is the recruitment platform's id, as the lobby keeps
	// it.
	Participant string
	// Kind is arrived, consented, admitted, refused, matched, requeued,
	// dropped or completed; Reason says why for refused, requeued and
	// dropped, and for completed when the match's game server was lost.
	Kind, Reason string
	// Match is the lobby's match (-1: none).
	Match int
}

// Lobby event kinds the store accepts: the lobby's.
var lobbyKinds = map[string]bool{"arrived": true, "consented": true, "admitted": true, "refused": true, "matched": true, "requeued": true, "dropped": true, "completed": true}

// maxLobbyText bounds an event's participant id and reason: the lobby's
// own bounds are 64 and 200 bytes.
const maxLobbyText = 512

// AddLobbyEvents stores evs, in order and all or none, as study set's.
func (db *DB) AddLobbyEvents(ctx context.Context, set int64, evs []LobbyEvent) error {
	if len(evs) == 0 {
		return nil
	}
	for i, e := range evs {
		switch {
		case !lobbyKinds[e.Kind]:
			return fmt.Errorf("store: %s: lobby event %d: kind %q: want arrived, consented, admitted, refused, matched, requeued, dropped or completed", db.name, i, e.Kind)
		case e.Participant == "" || len(e.Participant) > maxLobbyText || len(e.Reason) > maxLobbyText:
			return fmt.Errorf("store: %s: lobby event %d: participant id of %d bytes and reason of %d: want 1 to %d and at most %d",
				db.name, i, len(e.Participant), len(e.Reason), maxLobbyText, maxLobbyText)
		case e.Match < -1:
			return fmt.Errorf("store: %s: lobby event %d: match %d", db.name, i, e.Match)
		}
	}
	tx, err := db.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("store: %s: lobby events: %w", db.name, err)
	}
	defer tx.Rollback()
	stmt, err := tx.PrepareContext(ctx, db.dialect.rebind(
		"INSERT INTO lobby_events (study_set, lobby_ns, at_ns, participant, kind, reason, match_id) VALUES (?, ?, ?, ?, ?, ?, ?)"))
	if err != nil {
		return fmt.Errorf("store: %s: lobby events: %w", db.name, err)
	}
	defer stmt.Close()
	for _, e := range evs {
		if _, err := stmt.ExecContext(ctx, set, e.Lobby.UnixNano(), e.At.UnixNano(), e.Participant, e.Kind, e.Reason, e.Match); err != nil {
			return fmt.Errorf("store: %s: lobby events of study %d: %w", db.name, set, err)
		}
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("store: %s: lobby events of study %d: %w", db.name, set, err)
	}
	return nil
}

// LobbyEvents returns study set's lobby events in the order stored.
func (db *DB) LobbyEvents(ctx context.Context, set int64) ([]LobbyEvent, error) {
	rows, err := db.db.QueryContext(ctx, db.dialect.rebind(
		"SELECT lobby_ns, at_ns, participant, kind, reason, match_id FROM lobby_events WHERE study_set = ? ORDER BY id"), set)
	if err != nil {
		return nil, fmt.Errorf("store: %s: lobby events of study %d: %w", db.name, set, err)
	}
	defer rows.Close()
	var out []LobbyEvent
	for rows.Next() {
		var e LobbyEvent
		var lobby, at int64
		if err := rows.Scan(&lobby, &at, &e.Participant, &e.Kind, &e.Reason, &e.Match); err != nil {
			return nil, fmt.Errorf("store: %s: lobby events of study %d: %w", db.name, set, err)
		}
		e.Lobby, e.At = time.Unix(0, lobby).UTC(), time.Unix(0, at).UTC()
		out = append(out, e)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: %s: lobby events of study %d: %w", db.name, set, err)
	}
	return out, nil
}
