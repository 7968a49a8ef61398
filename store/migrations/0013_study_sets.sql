-- A study run in several sessions keeps one study id. A row of studies
-- is one session (one study run, one counterbalancing group); a row of
-- study_sets is the study it belongs to: its id (the study id reports
-- and exports carry), its name, the key of what its schedule sets with
-- the counterbalancing group left out (study.Schedule.StudyKey; '' for
-- a study stored before, matched by parsing its first session's
-- schedule), whether it is a simulated pilot, and when its first
-- session started. Each session points at its study (studies.study_set).
-- Sessions stored before become one study per name, schedule text and
-- simulation flag, numbered in the order of their first sessions: the
-- sessions of one schedule file (its groups chosen by --group) stay
-- together, and a pilot stays apart from the live sessions it could
-- not be pooled with.

CREATE TABLE study_sets (
	id {{identity}},
	name TEXT NOT NULL,
	schedule_key TEXT NOT NULL,
	simulated BOOLEAN NOT NULL,
	created_ns BIGINT,
	first_session BIGINT
);

INSERT INTO study_sets (name, schedule_key, simulated, created_ns, first_session)
SELECT name, '', simulated, MIN(started_ns), MIN(id) FROM studies
GROUP BY name, schedule, simulated
ORDER BY MIN(id);

ALTER TABLE studies ADD COLUMN study_set BIGINT REFERENCES study_sets (id);

UPDATE studies SET study_set = (
	SELECT ss.id FROM study_sets ss WHERE ss.first_session = (
		SELECT MIN(o.id) FROM studies o
		WHERE o.name = studies.name AND o.schedule = studies.schedule AND o.simulated = studies.simulated));

-- first_session only linked the sessions to their new study.

ALTER TABLE study_sets DROP COLUMN first_session;

CREATE INDEX studies_study_set ON studies (study_set);
