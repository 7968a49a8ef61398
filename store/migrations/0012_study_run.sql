-- A live study keeps its admin page's token, so that the run resuming
-- it after a stop or a crash serves the admin the same link: an admin
-- tab left open carries on rather than freezing on the phase it last
-- saw. The token is a secret of the study's operator: no export writes
-- it. Studies stored before have none; their resumed run draws one.

ALTER TABLE studies ADD COLUMN admin_token TEXT NOT NULL DEFAULT '';

-- A study run with --quick had every round cut to at most this long
-- (nanoseconds; 0: the schedule's own lengths), which is why its
-- rounds' planned_s may be shorter than the schedule says.

ALTER TABLE studies ADD COLUMN shortened_ns BIGINT NOT NULL DEFAULT 0;
