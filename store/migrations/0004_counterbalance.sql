-- Counterbalancing: a study keeps its schedule's design ('' without one)
-- and the group it played, and each seat the order of techniques it
-- played, one name per round separated by commas.

ALTER TABLE studies ADD COLUMN design TEXT NOT NULL DEFAULT '';

ALTER TABLE studies ADD COLUMN counterbalance_group BIGINT NOT NULL DEFAULT 0;

CREATE TABLE seat_orders (
	study_id BIGINT NOT NULL REFERENCES studies (id) ON DELETE CASCADE,
	seat BIGINT NOT NULL,
	seq BIGINT NOT NULL,
	counterbalance_group BIGINT NOT NULL,
	design TEXT NOT NULL,
	technique_order TEXT NOT NULL,
	PRIMARY KEY (study_id, seat)
);
