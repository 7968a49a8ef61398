-- A lobby event of a match (matched, requeued, dropped from a match,
-- completed) names the session of the study the match's game server
-- recorded: session_id is its row of studies, found by the
-- participant codes the lobby gave the match's seats once the session
-- ended (0: none known: the event has no match, the session stored
-- nothing, or the event was stored before this column). match_id stays
-- the lobby's own numbering, which starts again with each lobby
-- process; session_id joins the events to the sessions and their
-- rounds across lobbies and restarts.

ALTER TABLE lobby_events ADD COLUMN session_id BIGINT NOT NULL DEFAULT 0;
