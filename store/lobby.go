package store

import (
	"context"
	"fmt"
	"strings"
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
	// Match is the lobby's match (-1: none), numbered from 0 within
	// one lobby process.
	Match int
	// Session is the study session (its id, a row of studies) the
	// match's game server recorded (0: none known).
	Session int64
	// LinkStudy and LinkSession are, in an arrived event, the
	// recruitment platform's study and session ids the participant's
	// join link carried ("": none).
	LinkStudy, LinkSession string
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
		case len(e.LinkStudy) > maxLobbyText || len(e.LinkSession) > maxLobbyText:
			return fmt.Errorf("store: %s: lobby event %d: link study id of %d bytes and session id of %d: want at most %d",
				db.name, i, len(e.LinkStudy), len(e.LinkSession), maxLobbyText)
		case e.Match < -1 || e.Session < 0:
			return fmt.Errorf("store: %s: lobby event %d: match %d, session %d", db.name, i, e.Match, e.Session)
		}
	}
	tx, err := db.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("store: %s: lobby events: %w", db.name, err)
	}
	defer tx.Rollback()
	stmt, err := tx.PrepareContext(ctx, db.dialect.rebind(
		"INSERT INTO lobby_events (study_set, lobby_ns, at_ns, participant, kind, reason, match_id, session_id, link_study, link_session) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"))
	if err != nil {
		return fmt.Errorf("store: %s: lobby events: %w", db.name, err)
	}
	defer stmt.Close()
	for _, e := range evs {
		if _, err := stmt.ExecContext(ctx, set, e.Lobby.UnixNano(), e.At.UnixNano(), e.Participant, e.Kind, e.Reason, e.Match, e.Session, e.LinkStudy, e.LinkSession); err != nil {
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
		"SELECT lobby_ns, at_ns, participant, kind, reason, match_id, session_id, link_study, link_session FROM lobby_events WHERE study_set = ? ORDER BY id"), set)
	if err != nil {
		return nil, fmt.Errorf("store: %s: lobby events of study %d: %w", db.name, set, err)
	}
	defer rows.Close()
	var out []LobbyEvent
	for rows.Next() {
		var e LobbyEvent
		var lobby, at int64
		if err := rows.Scan(&lobby, &at, &e.Participant, &e.Kind, &e.Reason, &e.Match, &e.Session, &e.LinkStudy, &e.LinkSession); err != nil {
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

// LinkLobbySession names session as the study session of match (the
// lobby's number) of the lobby that started at lobby, in each event of
// that match study set has stored without a session. It returns how
// many events it linked.
func (db *DB) LinkLobbySession(ctx context.Context, set int64, lobby time.Time, match int, session int64) (int, error) {
	if match < 0 || session <= 0 {
		return 0, fmt.Errorf("store: %s: linking lobby match %d to session %d: want a match and a session", db.name, match, session)
	}
	res, err := db.db.ExecContext(ctx, db.dialect.rebind(
		"UPDATE lobby_events SET session_id = ? WHERE study_set = ? AND lobby_ns = ? AND match_id = ? AND session_id = 0"),
		session, set, lobby.UnixNano(), match)
	if err != nil {
		return 0, fmt.Errorf("store: %s: linking lobby match %d of study %d to session %d: %w", db.name, match, set, session, err)
	}
	n, err := res.RowsAffected()
	return int(n), err
}

// SessionOfCodes returns the session of study set whose people's seats
// had participant codes (a lobby's match, whose seats it gave them): 0
// when no session of the study stored any of them, an error when more
// than one did.
func (db *DB) SessionOfCodes(ctx context.Context, set int64, codes []string) (int64, error) {
	if len(codes) == 0 {
		return 0, nil
	}
	args := []any{set}
	for _, c := range codes {
		args = append(args, c)
	}
	rows, err := db.db.QueryContext(ctx, db.dialect.rebind(`SELECT DISTINCT p.study_id FROM participants p JOIN studies s ON s.id = p.study_id
		WHERE s.study_set = ? AND NOT p.bot AND p.code IN (`+strings.TrimSuffix(strings.Repeat("?, ", len(codes)), ", ")+`) ORDER BY p.study_id`), args...)
	if err != nil {
		return 0, fmt.Errorf("store: %s: the session of study %d with codes %v: %w", db.name, set, codes, err)
	}
	defer rows.Close()
	var ids []int64
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			return 0, fmt.Errorf("store: %s: the session of study %d with codes %v: %w", db.name, set, codes, err)
		}
		ids = append(ids, id)
	}
	if err := rows.Err(); err != nil {
		return 0, fmt.Errorf("store: %s: the session of study %d with codes %v: %w", db.name, set, codes, err)
	}
	switch len(ids) {
	case 0:
		return 0, nil
	case 1:
		return ids[0], nil
	}
	return 0, fmt.Errorf("store: %s: participant codes %v are people's in sessions %v of study %d, not in one", db.name, codes, ids, set)
}
