-- A round keeps what it really ran beside what the schedule planned:
-- duration_ns is the measured part's time on the play clock (pauses left
-- out, extensions in), planned_ns the schedule's and paused_ns how long
-- the administrator paused it. Rounds stored before have their planned
-- duration in both. A live study keeps an event log: the administrator's
-- actions, stops, crashes found at a resume, and resumes.

ALTER TABLE rounds ADD COLUMN planned_ns BIGINT NOT NULL DEFAULT 0;

ALTER TABLE rounds ADD COLUMN paused_ns BIGINT NOT NULL DEFAULT 0;

UPDATE rounds SET planned_ns = duration_ns;

CREATE TABLE events (
	study_id BIGINT NOT NULL REFERENCES studies (id) ON DELETE CASCADE,
	seq BIGINT NOT NULL,
	round BIGINT NOT NULL,
	kind TEXT NOT NULL,
	detail TEXT NOT NULL,
	at_ns BIGINT,
	PRIMARY KEY (study_id, seq)
);
