-- Participant instruments: an answer keeps the stage it was given at
-- (round: after a round; intake: once before the first round, stored
-- with round -1; final: once after the last round); a study keeps its
-- consent text and its questions (kind, bounds, choices, anchors), so
-- that its answers read alone; each participant's browser reports its
-- consent, refresh rate, mouse sensitivity and screen (at consent,
-- round -1, and on joining each round). Answers stored before were
-- all after a round. A shot keeps what its client sent (the eye it
-- left from, the aim, the view time claimed) and a path point where the
-- player looked; rows stored before have them 0. A participant's page
-- reports how it drew each round (frames: the time between frames).

ALTER TABLE answers ADD COLUMN stage TEXT NOT NULL DEFAULT 'round';

ALTER TABLE studies ADD COLUMN consent TEXT NOT NULL DEFAULT '';

CREATE TABLE questions (
	study_id BIGINT NOT NULL REFERENCES studies (id) ON DELETE CASCADE,
	seq BIGINT NOT NULL,
	question TEXT NOT NULL,
	stage TEXT NOT NULL,
	position BIGINT NOT NULL,
	kind TEXT NOT NULL,
	question_text TEXT NOT NULL,
	min_value BIGINT NOT NULL,
	max_value BIGINT NOT NULL,
	choices TEXT NOT NULL,
	low_anchor TEXT NOT NULL,
	high_anchor TEXT NOT NULL,
	PRIMARY KEY (study_id, question)
);

CREATE TABLE clients (
	study_id BIGINT NOT NULL REFERENCES studies (id) ON DELETE CASCADE,
	seq BIGINT NOT NULL,
	seat BIGINT NOT NULL,
	round BIGINT NOT NULL,
	consented BOOLEAN NOT NULL,
	at_ns BIGINT,
	refresh_hz DOUBLE PRECISION NOT NULL,
	mouse_sensitivity DOUBLE PRECISION NOT NULL,
	user_agent TEXT NOT NULL,
	screen_w BIGINT NOT NULL,
	screen_h BIGINT NOT NULL,
	pixel_ratio DOUBLE PRECISION NOT NULL,
	PRIMARY KEY (study_id, seat, round)
);

ALTER TABLE shots ADD COLUMN eye_x DOUBLE PRECISION NOT NULL DEFAULT 0;

ALTER TABLE shots ADD COLUMN eye_y DOUBLE PRECISION NOT NULL DEFAULT 0;

ALTER TABLE shots ADD COLUMN eye_z DOUBLE PRECISION NOT NULL DEFAULT 0;

ALTER TABLE shots ADD COLUMN aim_yaw_deg DOUBLE PRECISION NOT NULL DEFAULT 0;

ALTER TABLE shots ADD COLUMN aim_pitch_deg DOUBLE PRECISION NOT NULL DEFAULT 0;

ALTER TABLE shots ADD COLUMN view_ns BIGINT NOT NULL DEFAULT 0;

ALTER TABLE paths ADD COLUMN yaw_deg DOUBLE PRECISION NOT NULL DEFAULT 0;

ALTER TABLE paths ADD COLUMN pitch_deg DOUBLE PRECISION NOT NULL DEFAULT 0;

CREATE TABLE frames (
	study_id BIGINT NOT NULL REFERENCES studies (id) ON DELETE CASCADE,
	seq BIGINT NOT NULL,
	seat BIGINT NOT NULL,
	round BIGINT NOT NULL,
	frames BIGINT NOT NULL,
	mean_ms DOUBLE PRECISION NOT NULL,
	p50_ms DOUBLE PRECISION NOT NULL,
	p95_ms DOUBLE PRECISION NOT NULL,
	p99_ms DOUBLE PRECISION NOT NULL,
	max_ms DOUBLE PRECISION NOT NULL,
	at_ns BIGINT,
	PRIMARY KEY (study_id, seat, round)
);
