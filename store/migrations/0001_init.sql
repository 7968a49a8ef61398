-- lagkit's study schema. Every row belongs to a study; a study's id comes
-- from the database, so several servers can write to one PostgreSQL
-- database at once. Rounds are keyed by (study, index), participants by
-- (study, seat, round); the other tables by (study, seq), seq being the
-- record's place in its study's stream, which keeps the order the study
-- runner produced. Wall-clock times are Unix nanoseconds (UTC), NULL when
-- not known; match times (t_ns) and durations are nanoseconds. The seed is
-- the study's uint64 seed with its bits kept in a signed BIGINT.
-- {{identity}} becomes the dialect's auto-assigned integer key.

CREATE TABLE studies (
	id {{identity}},
	name TEXT NOT NULL,
	schedule TEXT NOT NULL,
	seed BIGINT NOT NULL,
	simulated BOOLEAN NOT NULL,
	started_ns BIGINT
);

CREATE TABLE rounds (
	study_id BIGINT NOT NULL REFERENCES studies (id) ON DELETE CASCADE,
	idx BIGINT NOT NULL,
	seq BIGINT NOT NULL,
	name TEXT NOT NULL,
	map TEXT NOT NULL,
	mode TEXT NOT NULL,
	technique TEXT NOT NULL,
	duration_ns BIGINT NOT NULL,
	started_ns BIGINT,
	ended_ns BIGINT,
	PRIMARY KEY (study_id, idx)
);

CREATE TABLE participants (
	study_id BIGINT NOT NULL REFERENCES studies (id) ON DELETE CASCADE,
	seat BIGINT NOT NULL,
	round BIGINT NOT NULL,
	seq BIGINT NOT NULL,
	code TEXT NOT NULL,
	team BIGINT NOT NULL,
	bot BOOLEAN NOT NULL,
	latency_ms DOUBLE PRECISION NOT NULL,
	PRIMARY KEY (study_id, seat, round)
);

CREATE TABLE sessions (
	study_id BIGINT NOT NULL REFERENCES studies (id) ON DELETE CASCADE,
	seq BIGINT NOT NULL,
	round BIGINT NOT NULL,
	seat BIGINT NOT NULL,
	kind TEXT NOT NULL,
	reason TEXT NOT NULL,
	transport TEXT NOT NULL,
	at_ns BIGINT,
	PRIMARY KEY (study_id, seq)
);

CREATE TABLE shots (
	study_id BIGINT NOT NULL REFERENCES studies (id) ON DELETE CASCADE,
	seq BIGINT NOT NULL,
	round BIGINT NOT NULL,
	t_ns BIGINT NOT NULL,
	shooter BIGINT NOT NULL,
	shot_tick BIGINT NOT NULL,
	victim BIGINT NOT NULL,
	weapon BIGINT NOT NULL,
	part TEXT NOT NULL,
	policy TEXT NOT NULL,
	hit BOOLEAN NOT NULL,
	registered BOOLEAN NOT NULL,
	damage BIGINT NOT NULL,
	rewind_ms DOUBLE PRECISION NOT NULL,
	rollback_m DOUBLE PRECISION NOT NULL,
	objective_sbc BOOLEAN NOT NULL,
	appeal TEXT NOT NULL,
	kill BOOLEAN NOT NULL,
	PRIMARY KEY (study_id, seq)
);

CREATE TABLE kills (
	study_id BIGINT NOT NULL REFERENCES studies (id) ON DELETE CASCADE,
	seq BIGINT NOT NULL,
	round BIGINT NOT NULL,
	t_ns BIGINT NOT NULL,
	killer BIGINT NOT NULL,
	victim BIGINT NOT NULL,
	weapon BIGINT NOT NULL,
	PRIMARY KEY (study_id, seq)
);

CREATE TABLE objectives (
	study_id BIGINT NOT NULL REFERENCES studies (id) ON DELETE CASCADE,
	seq BIGINT NOT NULL,
	round BIGINT NOT NULL,
	t_ns BIGINT NOT NULL,
	seat BIGINT NOT NULL,
	team BIGINT NOT NULL,
	kind TEXT NOT NULL,
	PRIMARY KEY (study_id, seq)
);

CREATE TABLE sbc_reports (
	study_id BIGINT NOT NULL REFERENCES studies (id) ON DELETE CASCADE,
	seq BIGINT NOT NULL,
	round BIGINT NOT NULL,
	t_ns BIGINT NOT NULL,
	reporter BIGINT NOT NULL,
	shooter BIGINT NOT NULL,
	shot_tick BIGINT NOT NULL,
	rewind_ms DOUBLE PRECISION NOT NULL,
	rollback_m DOUBLE PRECISION NOT NULL,
	objective_sbc BOOLEAN NOT NULL,
	appeal TEXT NOT NULL,
	PRIMARY KEY (study_id, seq)
);

CREATE TABLE answers (
	study_id BIGINT NOT NULL REFERENCES studies (id) ON DELETE CASCADE,
	seq BIGINT NOT NULL,
	round BIGINT NOT NULL,
	seat BIGINT NOT NULL,
	question TEXT NOT NULL,
	kind TEXT NOT NULL,
	value BIGINT NOT NULL,
	answer_text TEXT NOT NULL,
	at_ns BIGINT,
	PRIMARY KEY (study_id, seq)
);

CREATE TABLE paths (
	study_id BIGINT NOT NULL REFERENCES studies (id) ON DELETE CASCADE,
	seq BIGINT NOT NULL,
	round BIGINT NOT NULL,
	t_ns BIGINT NOT NULL,
	seat BIGINT NOT NULL,
	team BIGINT NOT NULL,
	x DOUBLE PRECISION NOT NULL,
	y DOUBLE PRECISION NOT NULL,
	z DOUBLE PRECISION NOT NULL,
	PRIMARY KEY (study_id, seq)
);
