-- An online study's lobby records what happened to each participant as
-- it happens: arrived, admitted (passed the prescreen), refused (at the
-- prescreen, with why), matched, dropped (with why) and completed. The
-- report's participant-flow table counts them. participant is the id
-- the recruitment platform gave, as the lobby keeps it: the lobby
-- allows one participation per id, and the flow counts one per id.
-- lobby_ns is when the lobby process that recorded the event started
-- (a study served by a lobby stopped and started again has several),
-- at_ns when the event happened, match_id the lobby's match (numbered
-- from 0 within one lobby_ns; -1: none). The sessions' participant codes
-- are not linked to these ids: the platform's id stays out of the
-- study's records.

CREATE TABLE lobby_events (
	id {{identity}},
	study_set BIGINT NOT NULL REFERENCES study_sets (id),
	lobby_ns BIGINT NOT NULL,
	at_ns BIGINT NOT NULL,
	participant TEXT NOT NULL,
	kind TEXT NOT NULL,
	reason TEXT NOT NULL,
	match_id BIGINT NOT NULL
);

CREATE INDEX lobby_events_study_set ON lobby_events (study_set, id);
