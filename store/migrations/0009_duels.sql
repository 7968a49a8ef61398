-- Duels: per encounter of two seats in a round, when each one's client
-- first drew the other and first fired at it (ms after the duel's first
-- sighting, -1 when it did not happen), who hit first and who killed
-- (seats, -1: none), and, when both drew the other, the advantage of the
-- one that drew first and the advantage Riot's account of Valorant's
-- netcode predicts for it. Studies stored before have none.

CREATE TABLE duels (
	study_id BIGINT NOT NULL REFERENCES studies (id) ON DELETE CASCADE,
	seq BIGINT NOT NULL,
	round BIGINT NOT NULL,
	t_ns BIGINT NOT NULL,
	seat_a BIGINT NOT NULL,
	seat_b BIGINT NOT NULL,
	sight_a_ms DOUBLE PRECISION NOT NULL,
	sight_b_ms DOUBLE PRECISION NOT NULL,
	shot_a_ms DOUBLE PRECISION NOT NULL,
	shot_b_ms DOUBLE PRECISION NOT NULL,
	first_hit BIGINT NOT NULL,
	killer BIGINT NOT NULL,
	both_saw BOOLEAN NOT NULL,
	first_seer BIGINT NOT NULL,
	advantage_ms DOUBLE PRECISION NOT NULL,
	expected_ms DOUBLE PRECISION NOT NULL,
	PRIMARY KEY (study_id, seq)
);
