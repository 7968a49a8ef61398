-- Participant instruments: an answer keeps the stage it was given at
-- (round: after a round; intake: once before the first round, stored
-- with round -1; final: once after the last round); a study keeps its
-- consent text and its questions (kind, bounds, choices, anchors), so
-- that its answers read alone; each participant's browser reports its
-- consent, refresh rate, mouse sensitivity and screen (at consent,
-- round -1, and on joining each round). Answers stored before were
-- all after a round.

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
