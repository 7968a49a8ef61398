-- The manipulation check: per seat per round, the link as injected
-- (one way, each direction) and as measured: the server's round-trip
-- samples (mean, median, 95th percentile, jitter as the mean absolute
-- difference of successive samples, their count), the client's own
-- estimate where it reports one (client_samples 0: none), and what the
-- emulated link applied (the share of datagrams dropped and the mean
-- one-way delay, up and down).

CREATE TABLE network (
	study_id BIGINT NOT NULL REFERENCES studies (id) ON DELETE CASCADE,
	seat BIGINT NOT NULL,
	round BIGINT NOT NULL,
	seq BIGINT NOT NULL,
	latency_ms DOUBLE PRECISION NOT NULL,
	jitter_ms DOUBLE PRECISION NOT NULL,
	loss DOUBLE PRECISION NOT NULL,
	rtt_mean_ms DOUBLE PRECISION NOT NULL,
	rtt_p50_ms DOUBLE PRECISION NOT NULL,
	rtt_p95_ms DOUBLE PRECISION NOT NULL,
	rtt_jitter_ms DOUBLE PRECISION NOT NULL,
	rtt_samples BIGINT NOT NULL,
	client_rtt_mean_ms DOUBLE PRECISION NOT NULL,
	client_rtt_jitter_ms DOUBLE PRECISION NOT NULL,
	client_samples BIGINT NOT NULL,
	loss_up DOUBLE PRECISION NOT NULL,
	loss_down DOUBLE PRECISION NOT NULL,
	delay_up_ms DOUBLE PRECISION NOT NULL,
	delay_down_ms DOUBLE PRECISION NOT NULL,
	PRIMARY KEY (study_id, seat, round)
);
