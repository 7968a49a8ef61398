-- A study keeps the key of what its schedule sets (study.Schedule.Key):
-- a resumed study is matched on it, not on the file's exact text. Studies
-- stored before have '' and are matched by parsing their stored schedule.

ALTER TABLE studies ADD COLUMN schedule_key TEXT NOT NULL DEFAULT '';
