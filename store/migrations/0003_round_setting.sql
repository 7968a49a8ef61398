-- A round keeps its technique's name (technique) and its settings in the
-- compact "key=value ..." form (setting) apart: two techniques of the
-- same settings (a placebo, a repeated control) stay two. Rounds stored
-- before held the settings in technique: they are copied to setting, and
-- readers take a round whose technique equals its setting for one of
-- those, naming it from the study's schedule.

ALTER TABLE rounds ADD COLUMN setting TEXT NOT NULL DEFAULT '';

UPDATE rounds SET setting = technique;
