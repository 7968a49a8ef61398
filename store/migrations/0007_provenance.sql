-- Provenance: a study keeps the lagkit that ran it (module version, VCS
-- revision, whether its tree was modified, the Go that built it, and why
-- the revision is absent when it is) and the server's tick rate; its
-- techniques by name with their settings; each round the seed its bots
-- played under and its loadout; each seat the jitter and loss injected
-- on its link. Rows stored before have them empty or 0.

ALTER TABLE studies ADD COLUMN lagkit_version TEXT NOT NULL DEFAULT '';

ALTER TABLE studies ADD COLUMN vcs_revision TEXT NOT NULL DEFAULT '';

ALTER TABLE studies ADD COLUMN vcs_modified BOOLEAN NOT NULL DEFAULT FALSE;

ALTER TABLE studies ADD COLUMN go_version TEXT NOT NULL DEFAULT '';

ALTER TABLE studies ADD COLUMN build_note TEXT NOT NULL DEFAULT '';

ALTER TABLE studies ADD COLUMN tick_rate BIGINT NOT NULL DEFAULT 0;

ALTER TABLE rounds ADD COLUMN seed BIGINT NOT NULL DEFAULT 0;

ALTER TABLE rounds ADD COLUMN weapons TEXT NOT NULL DEFAULT '';

ALTER TABLE participants ADD COLUMN jitter_ms DOUBLE PRECISION NOT NULL DEFAULT 0;

ALTER TABLE participants ADD COLUMN loss DOUBLE PRECISION NOT NULL DEFAULT 0;

CREATE TABLE techniques (
	study_id BIGINT NOT NULL REFERENCES studies (id) ON DELETE CASCADE,
	name TEXT NOT NULL,
	seq BIGINT NOT NULL,
	setting TEXT NOT NULL,
	PRIMARY KEY (study_id, name)
);
