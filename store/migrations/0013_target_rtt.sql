-- A seat's link may hold a round trip (a schedule's target_rtt_ms: the
-- difference from the seat's own round trip injected) instead of a
-- fixed latency: participants and network keep the target. Rows from
-- before have none (0).

ALTER TABLE participants ADD COLUMN target_rtt_ms DOUBLE PRECISION NOT NULL DEFAULT 0;

ALTER TABLE network ADD COLUMN target_rtt_ms DOUBLE PRECISION NOT NULL DEFAULT 0;
