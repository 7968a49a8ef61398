-- A page's report of a round also sums up its client's own round-trip
-- estimate through the round (mean, mean absolute difference of
-- successive samples, and their count): the client-side half of the
-- network manipulation check. Rounds reported before have 0 samples.

ALTER TABLE frames ADD COLUMN rtt_mean_ms DOUBLE PRECISION NOT NULL DEFAULT 0;

ALTER TABLE frames ADD COLUMN rtt_jitter_ms DOUBLE PRECISION NOT NULL DEFAULT 0;

ALTER TABLE frames ADD COLUMN rtt_samples BIGINT NOT NULL DEFAULT 0;
